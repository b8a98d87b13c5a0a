//! libpaimonc_vortex: the C ABI of src/format/vortex/paimonc_vortex.h over
//! the upstream Vortex file format. Every exported function catches panics;
//! errors go back as messages in the caller's buffer.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use arrow_array::ffi::{from_ffi, to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{make_array, Array, RecordBatch, StructArray};
use arrow_buffer::{BooleanBuffer, Buffer as ArrowBuffer, NullBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::{DataType, Field, Fields, Schema};
use vortex::array::arrow::{ArrowArrayExecutor, FromArrowArray};
use vortex::array::expr::{root, select};
use vortex::array::iter::ArrayIterator;
use vortex::array::{ArrayRef, VortexSessionExecute};
use vortex::buffer::{Buffer, ByteBuffer};
use vortex::dtype::arrow::FromArrowType;
use vortex::dtype::{DType, FieldName, FieldNames};
use vortex::file::{OpenOptionsSessionExt, WriteOptionsSessionExt, Writer};
use vortex::io::runtime::current::CurrentThreadRuntime;
use vortex::io::runtime::BlockingRuntime;
use vortex::io::session::RuntimeSessionExt;
use vortex::session::VortexSession;
use vortex::VortexSessionDefault;

const ABI_VERSION: u32 = 1;
static VERSION: &[u8] = b"paimonc_vortex 0.1.0 (vortex 0.70.0)\0";

#[repr(C)]
#[derive(Clone, Copy)]
pub struct PmvxIo {
    ctx: *mut c_void,
    size: Option<unsafe extern "C" fn(*mut c_void) -> i64>,
    read_at: Option<unsafe extern "C" fn(*mut c_void, u64, *mut c_void, usize) -> c_int>,
    write: Option<unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> c_int>,
}

/// The C Data Interface ArrowArray, to take a borrowed view of the caller's.
#[repr(C)]
struct RawArrowArray {
    length: i64,
    null_count: i64,
    offset: i64,
    n_buffers: i64,
    n_children: i64,
    buffers: *mut *const c_void,
    children: *mut *mut RawArrowArray,
    dictionary: *mut RawArrowArray,
    release: Option<unsafe extern "C" fn(*mut RawArrowArray)>,
    private_data: *mut c_void,
}

unsafe extern "C" fn borrowed_release(a: *mut RawArrowArray) {
    // The caller still owns the data: only mark this view released.
    (*a).release = None;
}

type Res<T> = Result<T, String>;

fn set_err(err: *mut c_char, err_len: usize, msg: &str) {
    if err.is_null() || err_len == 0 {
        return;
    }
    let bytes = msg.as_bytes();
    let n = bytes.len().min(err_len - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), err as *mut u8, n);
        *err.add(n) = 0;
    }
}

static QUIET: std::sync::Once = std::sync::Once::new();

/// Runs f, turning an Err or a panic into -1 and a message.
fn guard<F: FnOnce() -> Res<()>>(err: *mut c_char, err_len: usize, f: F) -> c_int {
    // Panics become error messages: no report on the host's stderr. The hook
    // is this library's own (a cdylib has its own std).
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => 0,
        Ok(Err(m)) => {
            set_err(err, err_len, &m);
            -1
        }
        Err(p) => {
            let m = if let Some(s) = p.downcast_ref::<&str>() {
                s.to_string()
            } else if let Some(s) = p.downcast_ref::<String>() {
                s.clone()
            } else {
                "unknown".to_string()
            };
            set_err(err, err_len, &format!("panic: {m}"));
            -1
        }
    }
}

/// "what: error", without the backtrace Vortex errors carry when
/// RUST_BACKTRACE is set.
fn e<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |x| {
        let m = x.to_string();
        let m = m.split("\nBacktrace:").next().unwrap_or("").trim_end().to_string();
        format!("{what}: {m}")
    }
}

fn new_session() -> (CurrentThreadRuntime, VortexSession) {
    let rt = CurrentThreadRuntime::new();
    let session = VortexSession::default().with_handle(rt.handle());
    (rt, session)
}

/// A deep copy of an Arrow array whose buffers belong to someone else.
fn deep_copy(d: &ArrayData) -> Res<ArrayData> {
    let mut b = ArrayDataBuilder::new(d.data_type().clone()).len(d.len()).offset(d.offset());
    if let Some(n) = d.nulls() {
        // NullBuffer keeps its own bit offset: copy the bytes and keep it.
        let bb = n.inner();
        let buf = ArrowBuffer::from_slice_ref(bb.inner().as_slice());
        b = b.nulls(Some(NullBuffer::new(BooleanBuffer::new(buf, bb.offset(), bb.len()))));
    }
    for buf in d.buffers() {
        b = b.add_buffer(ArrowBuffer::from_slice_ref(buf.as_slice()));
    }
    for c in d.child_data() {
        b = b.add_child_data(deep_copy(c)?);
    }
    b.build().map_err(e("arrow batch"))
}

/// Imports the caller's struct batch as an owned RecordBatch.
unsafe fn import_batch(batch: *const RawArrowArray, schema: &FFI_ArrowSchema) -> Res<RecordBatch> {
    if batch.is_null() {
        return Err("batch is NULL".into());
    }
    if (*batch).release.is_none() {
        return Err("batch is released".into());
    }
    let mut view = std::ptr::read(batch);
    view.release = Some(borrowed_release);
    let ffi: FFI_ArrowArray = std::mem::transmute(view);
    let data = from_ffi(ffi, schema).map_err(e("importing the Arrow batch"))?;
    let data = deep_copy(&data)?;
    let arr = make_array(data);
    let st = arr
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| format!("batch is not a struct array but {}", arr.data_type()))?;
    if st.null_count() != 0 {
        return Err("batch has null rows at the top level".into());
    }
    let (fields, columns, _) = st.clone().into_parts();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).map_err(e("arrow batch"))
}

// ------------------------------------------------------------------ writer

struct CallbackWrite {
    io: PmvxIo,
    failed: bool,
}

impl Write for CallbackWrite {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let f = self.io.write.ok_or_else(|| std::io::Error::other("pmvx_io.write is NULL"))?;
        if buf.is_empty() {
            return Ok(());
        }
        if unsafe { f(self.io.ctx, buf.as_ptr() as *const c_void, buf.len()) } != 0 {
            self.failed = true;
            return Err(std::io::Error::other("the output file refused the write"));
        }
        Ok(())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

// Send is asserted for the callback context: the shim calls back only on the
// thread inside the pmvx_* call (CurrentThreadRuntime, no worker pool).
unsafe impl Send for CallbackWrite {}

struct AsyncCallbackWrite(CallbackWrite);

impl vortex::io::VortexWrite for AsyncCallbackWrite {
    async fn write_all<B: vortex::io::IoBuf>(&mut self, buffer: B) -> std::io::Result<B> {
        self.0.write_all(buffer.as_slice())?;
        Ok(buffer)
    }
    fn flush(&mut self) -> impl std::future::Future<Output = std::io::Result<()>> {
        std::future::ready(Ok(()))
    }
    fn shutdown(&mut self) -> impl std::future::Future<Output = std::io::Result<()>> {
        std::future::ready(Ok(()))
    }
}

pub struct PmvxWriter {
    rt: CurrentThreadRuntime,
    schema: FFI_ArrowSchema,
    arrow_schema: Arc<Schema>,
    writer: Option<Writer<'static>>,
    finished_bytes: u64,
    failed: bool,
}

#[no_mangle]
pub extern "C" fn pmvx_abi_version() -> u32 {
    ABI_VERSION
}

#[no_mangle]
pub extern "C" fn pmvx_version() -> *const c_char {
    VERSION.as_ptr() as *const c_char
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_writer_open(
    io: *const PmvxIo,
    schema: *const FFI_ArrowSchema,
    out: *mut *mut PmvxWriter,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    guard(err, err_len, || {
        if io.is_null() || schema.is_null() || out.is_null() {
            return Err("pmvx_writer_open: NULL argument".into());
        }
        *out = std::ptr::null_mut();
        let io = *io;
        let s = Schema::try_from(&*schema).map_err(e("writer schema"))?;
        // Keep our own copy of the C schema for importing batches.
        let own = FFI_ArrowSchema::try_from(&s).map_err(e("writer schema"))?;
        let dtype = DType::from_arrow(&s);
        let (rt, session) = new_session();
        let w = session
            .write_options()
            .writer(AsyncCallbackWrite(CallbackWrite { io, failed: false }), dtype);
        let w = PmvxWriter { rt, schema: own, arrow_schema: Arc::new(s), writer: Some(w), finished_bytes: 0, failed: false };
        *out = Box::into_raw(Box::new(w));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_writer_write(
    w: *mut PmvxWriter,
    batch: *const c_void,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    guard(err, err_len, || {
        let w = w.as_mut().ok_or("pmvx_writer_write: NULL writer")?;
        if w.failed {
            return Err("the vortex writer failed before".into());
        }
        let r = (|| {
            let rb = import_batch(batch as *const RawArrowArray, &w.schema)?;
            let rb = rb.with_schema(Arc::clone(&w.arrow_schema)).map_err(e("batch schema"))?;
            let arr = ArrayRef::from_arrow(rb, false).map_err(e("converting the batch to vortex"))?;
            let wr = w.writer.as_mut().ok_or("the vortex writer is finished")?;
            w.rt.block_on(wr.push(arr)).map_err(e("vortex write"))
        })();
        if r.is_err() {
            w.failed = true;
        }
        r
    })
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_writer_bytes_written(w: *const PmvxWriter) -> u64 {
    match w.as_ref() {
        Some(w) => match w.writer.as_ref() {
            Some(wr) => wr.bytes_written(),
            None => w.finished_bytes,
        },
        None => 0,
    }
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_writer_finish(
    w: *mut PmvxWriter,
    rows: *mut u64,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    guard(err, err_len, || {
        let w = w.as_mut().ok_or("pmvx_writer_finish: NULL writer")?;
        if w.failed {
            return Err("the vortex writer failed before".into());
        }
        let wr = w.writer.take().ok_or("the vortex writer is finished")?;
        let summary = w.rt.block_on(wr.finish());
        let summary = match summary {
            Ok(s) => s,
            Err(x) => {
                w.failed = true;
                return Err(format!("vortex write: {x}"));
            }
        };
        w.finished_bytes = summary.size();
        if !rows.is_null() {
            *rows = summary.row_count();
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_writer_free(w: *mut PmvxWriter) {
    if !w.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(w))));
    }
}

// ------------------------------------------------------------------ reader

pub struct PmvxReader {
    _rt: CurrentThreadRuntime,
    iter: Option<Box<dyn ArrayIterator>>,
    target: DataType,
    session: VortexSession,
    rows: i64,
    file_rows: i64,
}

/// Views (what Vortex prefers for strings) come out as plain utf8 / binary.
fn plain_type(t: &DataType) -> DataType {
    match t {
        DataType::Utf8View => DataType::Utf8,
        DataType::BinaryView => DataType::Binary,
        DataType::List(f) => DataType::List(Arc::new(plain_field(f))),
        DataType::LargeList(f) => DataType::LargeList(Arc::new(plain_field(f))),
        DataType::ListView(f) => DataType::List(Arc::new(plain_field(f))),
        DataType::FixedSizeList(f, n) => DataType::FixedSizeList(Arc::new(plain_field(f)), *n),
        DataType::Struct(fs) => DataType::Struct(Fields::from_iter(fs.iter().map(|f| plain_field(f)))),
        other => other.clone(),
    }
}

fn plain_field(f: &Field) -> Field {
    Field::new(f.name(), plain_type(f.data_type()), f.is_nullable())
}

unsafe fn read_all(io: &PmvxIo) -> Res<Vec<u8>> {
    let size = io.size.ok_or("pmvx_io.size is NULL")?;
    let read_at = io.read_at.ok_or("pmvx_io.read_at is NULL")?;
    let n = size(io.ctx);
    if n < 0 {
        return Err("cannot get the size of the vortex file".into());
    }
    let n = usize::try_from(n).map_err(e("file size"))?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(n).map_err(e("out of memory reading the vortex file"))?;
    buf.resize(n, 0);
    if n > 0 && read_at(io.ctx, 0, buf.as_mut_ptr() as *mut c_void, n) != 0 {
        return Err("cannot read the vortex file".into());
    }
    Ok(buf)
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_reader_open(
    io: *const PmvxIo,
    columns: *const *const c_char,
    n_columns: usize,
    row_ranges: *const i64,
    n_ranges: usize,
    out: *mut *mut PmvxReader,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    guard(err, err_len, || {
        if io.is_null() || out.is_null() {
            return Err("pmvx_reader_open: NULL argument".into());
        }
        *out = std::ptr::null_mut();
        let mut wanted: Vec<String> = Vec::new();
        if !columns.is_null() {
            for i in 0..n_columns {
                let p = *columns.add(i);
                if p.is_null() {
                    return Err("pmvx_reader_open: NULL column name".into());
                }
                wanted.push(CStr::from_ptr(p).to_string_lossy().into_owned());
            }
        }
        let bytes = read_all(&*io)?;
        let (rt, session) = new_session();
        let file = session
            .open_options()
            .open_buffer(ByteBuffer::from(bytes))
            .map_err(e("not a readable vortex file"))?;
        let file_rows = file.row_count();
        let fields = file
            .dtype()
            .as_struct_fields_opt()
            .ok_or("the vortex file does not hold a struct of columns")?
            .clone();
        let mut scan = file.scan().map_err(e("vortex scan"))?;
        if !columns.is_null() {
            // file order, names the file lacks left out
            let names: Vec<FieldName> = fields
                .names()
                .iter()
                .filter(|n| wanted.iter().any(|w| w.as_str() == n.as_ref()))
                .cloned()
                .collect();
            scan = scan.with_projection(select(FieldNames::from(names), root()));
        }
        let mut rows = file_rows as i64;
        if !row_ranges.is_null() && n_ranges > 0 {
            let mut idx: Vec<u64> = Vec::new();
            let mut prev = 0i64;
            for i in 0..n_ranges {
                let (s, t) = (*row_ranges.add(2 * i), *row_ranges.add(2 * i + 1));
                if s < prev || t < s || t as u64 > file_rows {
                    return Err(format!("row range [{s}, {t}) is not ascending within the file's {file_rows} rows"));
                }
                idx.extend((s as u64)..(t as u64));
                prev = t;
            }
            rows = idx.len() as i64;
            scan = scan.with_row_indices(Buffer::from(idx));
        }
        let dtype = scan.dtype().map_err(e("vortex scan"))?;
        let target = plain_type(&dtype.to_arrow_dtype().map_err(e("vortex type to arrow"))?);
        let iter = scan.into_array_iter(&rt).map_err(e("vortex scan"))?;
        let r = PmvxReader { _rt: rt, iter: Some(Box::new(iter)), target, session, rows, file_rows: file_rows as i64 };
        *out = Box::into_raw(Box::new(r));
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_reader_num_rows(r: *const PmvxReader) -> i64 {
    r.as_ref().map(|r| r.rows).unwrap_or(-1)
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_reader_file_rows(r: *const PmvxReader) -> i64 {
    r.as_ref().map(|r| r.file_rows).unwrap_or(-1)
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_reader_schema(
    r: *mut PmvxReader,
    out: *mut FFI_ArrowSchema,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    guard(err, err_len, || {
        let r = r.as_ref().ok_or("pmvx_reader_schema: NULL reader")?;
        if out.is_null() {
            return Err("pmvx_reader_schema: NULL out".into());
        }
        let s = FFI_ArrowSchema::try_from(&r.target).map_err(e("exporting the schema"))?;
        std::ptr::write(out, s);
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_reader_next(
    r: *mut PmvxReader,
    out: *mut FFI_ArrowArray,
    eof: *mut c_int,
    err: *mut c_char,
    err_len: usize,
) -> c_int {
    guard(err, err_len, || {
        let r = r.as_mut().ok_or("pmvx_reader_next: NULL reader")?;
        if out.is_null() || eof.is_null() {
            return Err("pmvx_reader_next: NULL out".into());
        }
        std::ptr::write(out, FFI_ArrowArray::empty());
        *eof = 0;
        loop {
            let next = match r.iter.as_mut() {
                Some(it) => it.next(),
                None => None,
            };
            let chunk = match next {
                None => {
                    r.iter = None;
                    *eof = 1;
                    return Ok(());
                }
                Some(c) => c.map_err(e("vortex read"))?,
            };
            if chunk.len() == 0 {
                continue;
            }
            let mut ctx = r.session.create_execution_ctx();
            let a = chunk.execute_arrow(Some(&r.target), &mut ctx).map_err(e("vortex decode"))?;
            let (arr, _schema) = to_ffi(&a.to_data()).map_err(e("exporting the batch"))?;
            std::ptr::write(out, arr);
            return Ok(());
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn pmvx_reader_free(r: *mut PmvxReader) {
    if !r.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(r))));
    }
}
