"""The pipeline's real data, all of it already on the machine:

- the manual pages under /usr/share/man (gzip'd troff, the sources the `man`
  command formats), rendered to plain text here by a small troff stripper
  (man(7) and mdoc(7) macros, escapes, strings; tables and equations keep
  their text). The page's own bytes are kept as the BLOB payload.
- scikit-learn's bundled digits (1797 8x8 grey images, labels 0-9), each
  encoded as a PNG.
"""
import gzip
import io
import os
import random
import re
import zlib

MAN_ROOT = "/usr/share/man"
SECTIONS = "12345678"

# ------------------------------------------------------------------ man pages


def list_man_pages(root=MAN_ROOT):
    """(section, path) of every gzip'd page in root/man1..man8, sorted;
    symlinks (aliases) left out."""
    out = []
    for s in SECTIONS:
        d = os.path.join(root, "man" + s)
        try:
            names = sorted(os.listdir(d))
        except FileNotFoundError:
            continue
        for n in names:
            p = os.path.join(d, n)
            if n.endswith(".gz") and not os.path.islink(p) and os.path.isfile(p):
                out.append((s, p))
    return out


def _family(path):
    """Page family: the name's first word (git-merge, git-log -> git;
    gcloud_compute_... -> gcloud)."""
    return re.split(r"[_.:-]", os.path.basename(path), maxsplit=1)[0].lower()


def _round_robin(queues):
    out, i = [], 0
    while queues:
        nxt = []
        for q in queues:
            if i < len(q):
                out.append(q[i])
                nxt.append(q)
        queues = nxt
        i += 1
    return out


def pick_diverse(pages):
    """The pages in round-robin order over sections, and within a section
    over families, so that any prefix of the result is spread over every
    section and family: one machine has 16 000 pages of a single cloud CLI,
    which would otherwise crowd out everything else."""
    by_section = {}
    for section, path in pages:
        by_section.setdefault(section, {}).setdefault(_family(path), []).append((section, path))
    out = []
    for _, fams in sorted(by_section.items()):
        order = sorted(fams)
        random.Random(0).shuffle(order)                # not only the a's and b's in a short prefix
        out.append(_round_robin([fams[f] for f in order]))
    return _round_robin(out)


def read_man_page(path):
    """The page's troff source (bytes), or None when it is only a `.so`
    redirect to another page or cannot be decompressed."""
    try:
        with gzip.open(path, "rb") as f:
            src = f.read()
    except (OSError, EOFError, zlib.error):
        return None
    head = src.lstrip()[:200]
    if head.startswith(b".so ") and src.count(b"\n") <= 3:
        return None
    return src


_GLYPHS = {
    "em": "--", "en": "-", "hy": "-", "mi": "-", "bu": "*", "aq": "'", "dq": '"', "lq": '"', "rq": '"',
    "oq": "'", "cq": "'", "co": "(c)", "rg": "(R)", "tm": "(TM)", "ga": "`", "ti": "~", "ha": "^",
    "ba": "|", "br": "|", "or": "|", "sl": "/", "rs": "\\", "at": "@", "sh": "#", "Do": "$", "pl": "+",
    "eq": "=", "<=": "<=", ">=": ">=", "!=": "!=", "->": "->", "<-": "<-", "mu": "x", "de": " degrees",
    "ua": "^", "da": "v", "fm": "'", "sd": "''", "ct": "c", "sc": "S", "ps": "P", "dg": "+", "Fo": "<<",
    "Fc": ">>", "Bq": ",,", "bq": ",", "Eu": "EUR", "ae": "ae", "ss": "ss", "+-": "+-", "12": "1/2",
    "R": "(R)", "Tm": "(TM)", "Lq": '"', "Rq": '"', "Aq": "'", "Dq": '"', "Ba": "|", "Am": "&",
}

_ESC = re.compile(r"""
    \\ (?:
        f(?:\[[^\]]*\]|\(..|.)            # font change
      | s(?:\[[^\]]*\]|[+-]?\(..|[+-]?\d\d?|'[^']*') # size
      | [nk*gmM](?:\[[^\]]*\]|\(..|.)     # registers, strings, colours: handled below for *
      | \((?P<g2>..)                      # \(xx glyph
      | \[(?P<gb>[^\]]*)\]                # \[name] glyph
      | [hvwoblLDXZNRSxHCA]'[^']*'        # escapes with a quoted argument
      | ".*$                              # comment to end of line
      | (?P<one>.)                        # one-character escapes
    )
    """, re.VERBOSE | re.MULTILINE)

_STR = re.compile(r"\\\*(?:\[(?P<b>[^\]]*)\]|\((?P<p>..)|(?P<o>.))")

_ONE = {"-": "-", "e": "\\", "\\": "\\", " ": " ", "~": " ", "0": " ", "'": "'", "`": "`", ".": ".",
        "t": "\t", "_": "_"}


def _esc(m):
    g = m.group("g2") or m.group("gb")
    if g is not None:
        return _GLYPHS.get(g, "")
    one = m.group("one")
    if one is not None:
        return _ONE.get(one, "")
    return ""


def _strings(m):
    name = m.group("b") or m.group("p") or m.group("o")
    return _GLYPHS.get(name, "")


def render_text(s):
    """Escapes of one line of troff text -> plain text."""
    if "\\" not in s:
        return s
    return _ESC.sub(_esc, _STR.sub(_strings, s))


def _args(rest):
    """A macro line's arguments, honouring "double quotes"."""
    out, cur, q, i = [], [], False, 0
    while i < len(rest):
        c = rest[i]
        if c == '"':
            if q and i + 1 < len(rest) and rest[i + 1] == '"':
                cur.append('"')
                i += 1
            else:
                q = not q
        elif c in " \t" and not q:
            if cur:
                out.append("".join(cur))
                cur = []
        else:
            cur.append(c)
        i += 1
    if cur:
        out.append("".join(cur))
    return out


_BREAK = {"PP", "LP", "P", "TP", "HP", "br", "sp", "RS", "RE", "nf", "fi", "Pp", "Bl", "El", "Bd", "Ed",
          "EX", "EE", "Lp", "TQ", "YS", "SY"}
_SKIP = {"TH", "Dd", "Dt", "Os", "ds", "nr", "tr", "so", "mso", "ad", "na", "hy", "nh", "ft", "ps", "vs", "ll",
         "in", "ti", "ne", "ta", "ie", "el", "if", "ig", "rm", "rr", "als", "ns", "rs", "pc", "lf", "cp", "do",
         "hw", "ss", "cs", "bd", "fam", "fp", "mk", "rt", "tm", "ab", "ev", "UC", "PD", "IX", "Vb", "Ve",
         "AT", "DT", "ce", "ul", "cu", "hc", "lg", "pl", "bp", "wh", "ch", "it", "em", "pm", "fl", "nm",
         "nn", "sv", "os", "ec", "eo", "cc", "c2", "ds1", "as", "ls", "lt", "ta", "po", "tl", "Sm", "Bk",
         "Ek", "TE", "TS", "EQ", "EN", "T&", "UE", "ME", "MT", "UR", "OP", "ft", "ig"}
_ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
_MDOC_CALLS = re.compile(r"^(?:Ar|Op|Oo|Oc|Fl|Pa|Xr|Nm|Cm|Ic|Li|Em|Sy|Va|Dv|Er|Ev|Fa|Fn|Fo|Fc|Ft|Ql|Qo|Qc|"
                         r"Dq|Do|Dc|Sq|So|Sc|Pq|Po|Pc|Bq|Bo|Bc|Aq|Ao|Ac|Ns|No|Ta|Lk|Mt|An|Lb|In|Ad|Ux|Bx|"
                         r"Xo|Xc|Eo|Ec|At|Vt|Tn|Ms|Cd|Ms|Bf|Ef|Dl|It|Ss|Sh|Nd)$")


def _mdoc_line(tokens, state):
    """An mdoc(7) line (macro name first) to text: `Fl x` -> -x, `Xr ls 1`
    -> ls(1), a bare `Nm` -> the page name, `Ns` joins, other macro names
    are dropped and their arguments kept."""
    out, i, glue = [], 0, False
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        word = None
        if tok == "Fl":
            if nxt is not None and not _MDOC_CALLS.match(nxt):
                word, i = "-" + nxt, i + 1
            else:
                word = "-"
        elif tok == "Nm":
            if nxt is not None and not _MDOC_CALLS.match(nxt):
                state.setdefault("name", nxt)
                word, i = nxt, i + 1
            else:
                word = state.get("name", "")
        elif tok == "Xr" and nxt is not None and i + 2 < len(tokens):
            word, i = "{}({})".format(nxt, tokens[i + 2]), i + 2
        elif tok == "Ns":
            glue = True
        elif not _MDOC_CALLS.match(tok):
            word = tok
        if word:
            if glue and out:
                out[-1] += word
            else:
                out.append(word)
            glue = False
        i += 1
    return render_text(" ".join(out))


def troff_to_text(src):
    """Plain text of a man(7) / mdoc(7) page: headings on their own lines,
    paragraphs separated by blank lines, macro calls and escapes gone."""
    text = src.decode("utf-8", "replace") if isinstance(src, bytes) else src
    out = []
    mdoc = {}
    skipping_def = False
    in_table_spec = False
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if skipping_def:
            if line.startswith(".."):
                skipping_def = False
            continue
        if in_table_spec:                      # tbl: options / format lines end with '.'
            if line.rstrip().endswith("."):
                in_table_spec = False
            continue
        if line.startswith((".", "'")):                  # a request or macro call ("." alone: none)
            body = line[1:].lstrip()
            if body.startswith('\\"') or body.startswith("\\#") or not body:
                continue
            name, _, rest = body.partition(" ")
            name = name.strip()
            rest = rest.strip()
            if name in ("de", "de1", "am", "ami", "dei"):
                skipping_def = True
                continue
            if name == "TS":
                in_table_spec = True
                continue
            if name in ("SH", "Sh", "SS", "Ss"):
                heading = render_text(" ".join(_args(rest)))
                out.append("\n" + heading.upper() if name in ("SH", "Sh") else "\n" + heading)
                out.append("")
                continue
            if name in _BREAK:
                out.append("")
                continue
            if name in _SKIP:
                continue
            args = _args(rest)
            if name == "IP":                           # man(7) tagged paragraph: the tag
                out.append("")
                if args:
                    out.append(render_text(args[0]))
            elif name == "It":                         # mdoc list item
                out.append("")
                out.append(_mdoc_line(args, mdoc))
            elif name in _ALTERNATING:
                out.append(render_text("".join(args)))
            elif name == "Nd":
                out.append("- " + render_text(" ".join(args)))
            elif _MDOC_CALLS.match(name):
                out.append(_mdoc_line([name] + args, mdoc))
            else:
                out.append(render_text(" ".join(args)))
            continue
        out.append(render_text(line))
    # join lines into paragraphs
    paras, cur = [], []
    for ln in out:
        if ln.strip() == "":
            if cur:
                paras.append(" ".join(cur))
                cur = []
        elif ln.startswith("\n"):
            if cur:
                paras.append(" ".join(cur))
                cur = []
            paras.append(ln.strip())
        else:
            cur.append(ln.strip())
    if cur:
        paras.append(" ".join(cur))
    return "\n\n".join(re.sub(r"[ \t]+", " ", p).strip() for p in paras if p.strip())


def man_title(text, name):
    """The one-line summary: the NAME section's first paragraph
    ("ls - list directory contents"), else the page name."""
    m = re.search(r"(?:^|\n)NAME\n\n(.+?)(?:\n\n|$)", text)
    t = m.group(1) if m else name
    return re.sub(r"\s+", " ", t).strip()[:200]


def man_documents(n, root=MAN_ROOT):
    """Up to n man pages, spread over sections 1-8: dicts with name, section,
    title, text (rendered) and payload (the troff source bytes)."""
    pages = list_man_pages(root)
    docs = []
    for section, path in pick_diverse(pages):          # .so redirects and broken files are dropped
        src = read_man_page(path)
        if src is None:
            continue
        base = os.path.basename(path)[:-3]             # ls.1
        name = base.rsplit(".", 1)[0] if "." in base else base
        text = troff_to_text(src)
        if len(text) < 40:
            continue
        docs.append({"name": name, "section": section, "page": base, "title": man_title(text, name),
                     "text": text, "payload": src})
        if len(docs) >= n:
            break
    return docs, len(pages)


# ------------------------------------------------------------------ digits


def digit_images():
    """scikit-learn's digits as (png_bytes, label) pairs: 8x8, 16 grey levels
    scaled to 0-255."""
    import numpy as np
    from PIL import Image
    from sklearn.datasets import load_digits
    d = load_digits()
    out = []
    for img, label in zip(d.images, d.target):
        buf = io.BytesIO()
        Image.fromarray((img * (255.0 / 16.0)).round().astype(np.uint8), mode="L").save(buf, format="PNG")
        out.append((buf.getvalue(), int(label)))
    return out


def decode_png(b):
    """PNG bytes -> float32 array in [0, 1] (the training loop's decoder)."""
    import numpy as np
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(b)), dtype=np.float32) / 255.0
