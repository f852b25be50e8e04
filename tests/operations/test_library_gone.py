"""What a server says when ulid's library is not where its databases and
its settings expect it, as docs/operations.md ("Uninstalling") and
docs/troubleshooting.md quote it: a database that has the extension fails
every statement that needs the library, and a server that preloads it does
not start.

The library is taken away by moving the build's installed ulid.so aside
for one test and putting it back exactly (harness.upgrading's
InstalledRelease), and, for the preloading server, by a
dynamic_library_path that has no ulid in it.
"""

from __future__ import annotations


import pytest
from psycopg import errors

from harness.pgcluster import Cluster, build_of
from harness.upgrading import InstalledRelease
from ulidtools.clusters import ClusterError

# the oldest, and either side of PostgreSQL 18, which names a library
# without its $libdir/
pytestmark = pytest.mark.builds("13", "17", "18", "19")


def test_a_database_with_the_extension_fails_by_the_librarys_name(cluster, db, build, major, tmp_path):
    with cluster.connect(db) as conn:
        conn.execute("CREATE TABLE t (id ulid PRIMARY KEY)")
        conn.execute("INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T7')")
    # from PostgreSQL 18 on, the library is looked up, and named, without $libdir/
    library = "ulid" if major >= 18 else "$libdir/ulid"
    files = InstalledRelease(build, tmp_path / "installed")
    libdir = build_of(build).pkglibdir
    try:
        (libdir / "ulid.so").unlink()
        # a new session, which has not loaded the library yet
        with cluster.connect(db) as conn:
            for statement in ("SELECT gen_ulid()", "SELECT id FROM t",
                              "INSERT INTO t VALUES ('01JGFJJZ00XHF7E02JJ03AE4T8')"):
                with pytest.raises(errors.UndefinedFile) as failed:
                    conn.execute(statement)
                assert failed.value.sqlstate == "58P01"
                assert failed.value.diag.message_primary == f'could not access file "{library}": No such file or directory'
    finally:
        files.restore()
    with cluster.connect(db) as conn:
        assert conn.execute("SELECT id::text FROM t").fetchone() == ("01JGFJJZ00XHF7E02JJ03AE4T7",)


def test_a_server_preloading_a_library_that_is_gone_does_not_start(build, tmp_path):
    nowhere = tmp_path / "no-libraries"
    nowhere.mkdir()
    nowhere.chmod(0o755)
    server = Cluster(build, "library-gone", slot=41,
                     settings={"shared_preload_libraries": "ulid", "dynamic_library_path": str(nowhere)})
    server.destroy()
    try:
        with pytest.raises(ClusterError, match="did not start"):
            server.start()
        log = (server.dir / "server.log").read_text()
        assert 'FATAL:  could not access file "ulid": No such file or directory' in log, log[-2000:]
        # and it starts once the setting no longer names it
        server.settings = {"shared_preload_libraries": ""}
        server.start()
        with server.connect() as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        server.destroy()
