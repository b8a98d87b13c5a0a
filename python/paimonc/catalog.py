"""CatalogFactory, Catalog, Table, Snapshot and Identifier with pypaimon's names."""

import json

from . import _native
from ._base import Closing
from .errors import InvalidArgumentError, NotFoundError
from .schema import Schema, TableSchema
from .table import TableApiMixin
from .index import IndexApiMixin

__all__ = ["CatalogFactory", "Catalog", "Table", "Snapshot", "Identifier", "Database"]


class Identifier:
    """``database.object``; compares equal to its "db.table" string."""

    def __init__(self, database, object):
        self.database = database
        self.object = object

    @staticmethod
    def from_string(s):
        if isinstance(s, Identifier):
            return s
        db, sep, table = s.partition(".")
        if not sep:
            raise InvalidArgumentError("identifier '{}' is not of the form 'database.table'".format(s))
        return Identifier(db, table)

    def get_database_name(self):
        return self.database

    def get_table_name(self):
        return self.object

    def get_object_name(self):
        return self.object

    def get_full_name(self):
        return "{}.{}".format(self.database, self.object)

    def __str__(self):
        return self.get_full_name()

    def __repr__(self):
        return "Identifier(database={!r}, object={!r})".format(self.database, self.object)

    def __eq__(self, other):
        if isinstance(other, str):
            return self.get_full_name() == other
        if hasattr(other, "get_database_name") and hasattr(other, "get_table_name"):
            return (self.database, self.object) == (other.get_database_name(), other.get_table_name())
        return NotImplemented

    def __hash__(self):
        return hash(self.get_full_name())


def _ident_str(identifier):
    """Accepts "db.t", a paimonc Identifier or a pypaimon Identifier."""
    if isinstance(identifier, str):
        return identifier
    if hasattr(identifier, "get_full_name"):
        return identifier.get_full_name()
    raise TypeError("identifier must be 'db.table' or an Identifier, not {!r}".format(identifier))


class Database:
    def __init__(self, name, options=None, comment=None):
        self.name = name
        self.options = options or {}
        self.comment = comment

    def __repr__(self):
        return "Database({!r})".format(self.name)


class CatalogFactory:
    @staticmethod
    def create(catalog_options):
        """Opens a catalog. Only the filesystem metastore is supported."""
        opts = {str(k): str(v) for k, v in dict(catalog_options).items()}
        metastore = opts.get("metastore", "filesystem")
        if metastore != "filesystem":
            from .errors import UnsupportedError
            raise UnsupportedError("metastore '{}' is not supported by paimonc (only 'filesystem')".format(metastore))
        return Catalog(opts)


class Catalog(Closing):
    """A filesystem catalog over a local warehouse directory."""

    DB_LOCATION_PROP = "location"

    def __init__(self, options):
        self.catalog_options = dict(options)
        self._c = _native.Catalog(self.catalog_options)

    @property
    def warehouse(self):
        return self._c.warehouse()

    # -------------------------------------------------------- databases

    def list_databases(self):
        return self._c.list_databases()

    def get_database(self, name):
        if not self._c.database_exists(name):
            raise NotFoundError("Database {} does not exist.".format(name))
        return Database(name)

    def create_database(self, name, ignore_if_exists=False, properties=None):
        if properties and self.DB_LOCATION_PROP in properties:
            raise InvalidArgumentError("Cannot specify location for a database when using fileSystem catalog.")
        self._c.create_database(name, bool(ignore_if_exists))

    def drop_database(self, name, ignore_if_not_exists=False, cascade=False):
        self._c.drop_database(name, bool(ignore_if_not_exists), bool(cascade))

    def list_tables(self, database_name):
        return self._c.list_tables(database_name)

    # ----------------------------------------------------------- tables

    def create_table(self, identifier, schema, ignore_if_exists=False):
        if not isinstance(schema, Schema):
            raise TypeError("schema must be a paimonc.Schema")
        self._c.create_table(_ident_str(identifier), *schema._native_args(), bool(ignore_if_exists))

    def create_table_from_json(self, identifier, schema_json, ignore_if_exists=False):
        """Creates a table from a schema in Java's Schema JSON form."""
        if not isinstance(schema_json, str):
            schema_json = json.dumps(schema_json)
        self._c.create_table_json(_ident_str(identifier), schema_json, bool(ignore_if_exists))

    def get_table(self, identifier):
        t = Table(self._c.get_table(_ident_str(identifier)))
        t._catalog_options = dict(self.catalog_options)
        return t

    def drop_table(self, identifier, ignore_if_not_exists=False):
        self._c.drop_table(_ident_str(identifier), bool(ignore_if_not_exists))

    # branches, with pypaimon's catalog names (filesystem_catalog.py)
    def create_branch(self, identifier, branch_name, tag_name=None, ignore_if_exists=False, snapshot_id=None):
        self.get_table(identifier).create_branch(branch_name, tag_name, snapshot_id, ignore_if_exists)

    def drop_branch(self, identifier, branch_name, ignore_if_not_exists=False):
        self.get_table(identifier).drop_branch(branch_name, ignore_if_not_exists)

    def rename_branch(self, identifier, from_branch, to_branch):
        self.get_table(identifier).rename_branch(from_branch, to_branch)

    def fast_forward(self, identifier, branch_name):
        self.get_table(identifier).fast_forward(branch_name)

    def list_branches(self, identifier):
        return self.get_table(identifier).list_branches()

    def rename_table(self, source_identifier, target_identifier):
        self._c.rename_table(_ident_str(source_identifier), _ident_str(target_identifier))

    def alter_table(self, identifier, changes, ignore_if_not_exists=False):
        """Applies all changes as one new schema version, or none of them."""
        from .schema import SchemaChange
        args = []
        for ch in changes:
            if not isinstance(ch, SchemaChange):
                raise TypeError("changes must be paimonc.SchemaChange objects, not {!r}".format(ch))
            args.append(ch.args)
        self._c.alter_table(_ident_str(identifier), args, bool(ignore_if_not_exists))

    def close(self):
        pass


class Snapshot:
    """A snapshot file's content (attribute names as pypaimon's Snapshot)."""

    def __init__(self, d):
        self.id = d["id"]
        self.schema_id = d["schema_id"]
        self.time_millis = d["time_millis"]
        self.commit_kind = d["commit_kind"]
        self.commit_user = d["commit_user"]
        self.commit_identifier = d["commit_identifier"]
        self.total_record_count = d["total_record_count"]
        self.delta_record_count = d["delta_record_count"]
        self.base_manifest_list = d["base_manifest_list"]
        self.delta_manifest_list = d["delta_manifest_list"]
        self._json = d["json"]
        raw = json.loads(self._json)
        self.version = raw.get("version")
        self.changelog_manifest_list = raw.get("changelogManifestList")
        self.index_manifest = raw.get("indexManifest")
        self.changelog_record_count = raw.get("changelogRecordCount")
        self.watermark = raw.get("watermark")
        self.next_row_id = raw.get("nextRowId")
        self.properties = raw.get("properties")

    def to_json(self):
        return self._json

    def __repr__(self):
        return "Snapshot(id={}, schema_id={}, commit_kind={!r}, total_record_count={})".format(
            self.id, self.schema_id, self.commit_kind, self.total_record_count)


def _snapshot_or_none(d):
    return Snapshot(d) if d is not None else None


class Table(TableApiMixin, IndexApiMixin):
    """A table as loaded by Catalog.get_table (schema fixed at load time); the
    write/read builders and copy() come from paimonc.table.TableApiMixin."""

    def __init__(self, native):
        self._t = native
        self.table_schema = TableSchema(native.schema())
        self.identifier = Identifier.from_string(native.identifier())
        self.table_path = native.path()
        self.fields = self.table_schema.fields
        self.field_names = [f.name for f in self.fields]
        self.field_dict = {f.name: f for f in self.fields}
        self.partition_keys = list(self.table_schema.partition_keys)
        self.primary_keys = list(self.table_schema.primary_keys)
        self.options = dict(self.table_schema.options)
        self.partition_keys_fields = [self.field_dict[n] for n in self.partition_keys if n in self.field_dict]
        self.primary_keys_fields = [self.field_dict[n] for n in self.primary_keys if n in self.field_dict]
        self.is_primary_key_table = bool(self.primary_keys)

    @property
    def schema_id(self):
        return self.table_schema.id

    @property
    def highest_field_id(self):
        return self.table_schema.highest_field_id

    @property
    def comment(self):
        """The table comment or None.

        An attribute, as on pypaimon's Schema/TableSchema; pypaimon's
        FileStoreTable has a comment() *method* instead.
        """
        return self.table_schema.comment

    def to_arrow_schema(self):
        return self.table_schema.to_arrow_schema()

    _catalog_options = None

    def __reduce__(self):
        """Pickles as (catalog options, identifier, dynamic options): the
        receiving process (a DataLoader or Ray worker) reopens the table from
        its catalog. Splits pin the snapshot, so a reopened table reads the
        same data."""
        if self._catalog_options is None:
            from .errors import InvalidArgumentError
            raise InvalidArgumentError("this table was not loaded through a catalog and cannot be pickled")
        return (_restore_table, (self._catalog_options, str(self.identifier), dict(self._dynamic_options or {})))

    # ---------------------------------------------------------- schemas

    def schema_ids(self):
        return self._t.schema_ids()

    def schema(self, schema_id=None):
        if schema_id is None:
            return self.table_schema
        return TableSchema(self._t.load_schema(schema_id))

    def schemas(self):
        return [self.schema(i) for i in self.schema_ids()]

    # -------------------------------------------------------- snapshots

    def latest_snapshot(self):
        return _snapshot_or_none(self._t.latest_snapshot())

    def earliest_snapshot(self):
        return _snapshot_or_none(self._t.earliest_snapshot())

    def snapshot(self, snapshot_id):
        return Snapshot(self._t.snapshot(snapshot_id))

    def snapshot_ids(self):
        return self._t.snapshot_ids()

    def snapshots(self):
        return [self.snapshot(i) for i in self._t.snapshot_ids()]

    # ------------------------------------------------------------- tags

    def create_tag(self, tag_name, snapshot_id=None, ignore_if_exists=False):
        self._t.create_tag(tag_name, 0 if snapshot_id is None else int(snapshot_id), bool(ignore_if_exists))

    def delete_tag(self, tag_name):
        """True if the tag was deleted, False if it did not exist (as pypaimon)."""
        if tag_name not in self._t.list_tags():
            return False
        self._t.delete_tag(tag_name, True)
        return True

    # --------------------------------------------------------- branches

    def create_branch(self, branch_name, tag_name=None, snapshot_id=None, ignore_if_exists=False):
        """Creates a branch (Java's layout, <table>/branch/branch-<name>): from
        tag_name, else from snapshot_id, else empty with the table's schemas.
        Read and write it as the table "db.t$branch_<name>"."""
        self._t.create_branch(str(branch_name), None if tag_name is None else str(tag_name),
                              0 if snapshot_id is None else int(snapshot_id), bool(ignore_if_exists))

    def drop_branch(self, branch_name, ignore_if_not_exists=False):
        self._t.drop_branch(str(branch_name), bool(ignore_if_not_exists))

    def rename_branch(self, from_branch, to_branch):
        self._t.rename_branch(str(from_branch), str(to_branch))

    def fast_forward(self, branch_name):
        """Makes the table what the branch is (Java's fast_forward)."""
        self._t.fast_forward(str(branch_name))

    def list_branches(self):
        return self._t.list_branches()

    def list_tags(self):
        return self._t.list_tags()

    def tag_snapshot(self, tag_name):
        return Snapshot(self._t.tag_snapshot(tag_name))

    def __repr__(self):
        return "Table({})".format(self.identifier)


def _restore_table(catalog_options, identifier, dynamic_options):
    t = CatalogFactory.create(catalog_options).get_table(identifier)
    return t.copy(dynamic_options) if dynamic_options else t
