#!/usr/bin/env python3
"""Writes the adversarial inputs: hostile workloads (wl-*), traces (tr-*) and device profiles (pr-*) that
every command must refuse with one clear line, other tools' traces that `import` must refuse (im-*), and
valid extremes (ok-*) that must work. Each file's name
says what it attacks. Generated at test time (about 8 MB), never committed.
usage: make_inputs.py OUT_DIR PROFILE_JSON   (PROFILE_JSON: a valid device profile the pr-* files start from)"""
import gzip, json, os, sqlite3, sys


def write_inputs(out, base_profile):
    os.makedirs(out, exist_ok=True)

    def w(name, text):
        with open(os.path.join(out, name), "wb") as f:
            f.write(text if isinstance(text, bytes) else text.encode("latin-1" if name.endswith(".bin") else "utf-8"))

    def wl(ops, extra=""):
        return '{"format_version": 1, "name": "adv", %s"ops": [%s]}' % (extra, ",".join(ops))

    K = '{"id": "k", "kind": "kernel", "grid": %s, "block": 32, "duration": %s}'

    # --- workloads -------------------------------------------------------------------------------------
    w("wl-deep-arrays-60k.json", "[" * 60000 + "]" * 60000)
    w("wl-deep-objects-60k.json", '{"a":' * 60000 + "1" + "}" * 60000)
    w("wl-deep-in-wide-object.json", '{"format_version": 1, "name": ' + "[" * 60000 + "]" * 60000 + ', "x": 1, "y": 2, "ops": []}')
    w("wl-keys-100k.json", '{"format_version": 1, "name": "adv", "ops": [], "wide": {' +
      ",".join('"k%d": %d' % (i, i) for i in range(100000)) + "}}")
    w("wl-keys-100k-op.json", wl(['{"id": "k", "kind": "barrier", ' + ",".join('"k%d": 0' % i for i in range(100000)) + "}"]))
    w("wl-dup-key-after-100k.json", '{"format_version": 1, "name": "adv", "ops": [], "wide": {' +
      ",".join('"k%d": %d' % (i, i) for i in range(100000)) + ', "k0": 1}}')
    w("wl-per-block-2^63.json", wl([K % ("2", '{"per_block_ns": 9223372036854775000}')]))
    w("wl-per-block-1e18.json", wl([K % ("1", '{"per_block_ns": 1000000000000000000}')]))
    w("wl-host-ns-2^63.json", wl(['{"id": "h", "kind": "host_func", "host_ns": 9223372036854775807}']))
    w("wl-cost-1e308.json", wl([K % ("1", '{"bytes": 1e308}')]))
    w("wl-cost-1e999.json", wl([K % ("1", '{"flops": 1e999}')]))
    w("wl-copy-2^63.json", wl(['{"id": "c", "kind": "h2d", "bytes": 9223372036854775807}']))
    w("wl-copy-2^64.json", wl(['{"id": "c", "kind": "d2h", "bytes": 18446744073709551616}']))
    w("wl-grid-2^31.json", '{"format_version":1,"name":"b","ops":[{"id":"k","kind":"kernel","grid":2147483647,"block":1,"duration":{"per_block_ns":1}}]}')
    w("wl-grid-3d-huge.json", wl([K % ("[2147483647, 65535, 65535]", '{"per_block_ns": 1}')]))
    w("wl-serial-overflow.json", wl([K % ("2147483647", '{"per_block_ns": 1073741824}')]))
    w("wl-tasks-2^62.json", wl(['{"id": "t", "kind": "task_pool", "grid": 1, "block": 32, "tasks": {"ns": [4611686018427387904, 4611686018427387904]}}']))
    w("wl-negative-ns.json", wl([K % ("1", '{"per_block_ns": -9223372036854775808}')]))
    w("wl-block-list-huge.json", wl([K % ("2", '{"blocks_ns": [1, 9223372036854775807]}')]))
    w("wl-registers-2^32.json", wl(['{"id": "k", "kind": "kernel", "grid": 1, "block": 32, "registers": 4294967296, "duration": {"per_block_ns": 1}}']))
    w("wl-truncated.json", wl([K % ("1", '{"per_block_ns": 5}')])[:-7])
    w("wl-empty.json", "")
    w("wl-binary.bin", "".join(chr(c) for c in range(256)) * 4)
    w("wl-nul-in-id.json", wl(['{"id": "a\\u0000b", "kind": "barrier"}', '{"id": "c", "kind": "barrier", "deps": ["a\\u0000c"]}']))
    w("wl-long-key.json", '{"format_version": 1, "name": "adv", "' + "k" * 1000000 + '": 1, "ops": []}')
    w("wl-long-string-type.json", '{"format_version": 1, "name": ' + '["' + "v" * 1000000 + '"]' + ', "ops": []}')
    w("wl-cycle-10k.json", wl(['{"id": "o%d", "kind": "barrier", "deps": ["o%d"]}' % (i, (i + 1) % 10000) for i in range(10000)]))
    w("wl-deps-repeated.json", wl(['{"id": "a", "kind": "barrier"}', '{"id": "b", "kind": "barrier", "deps": [' + ",".join(['"a"'] * 50000) + "]}"]))
    w("wl-format-version-huge.json", '{"format_version": 99999999999999999999, "name": "x", "ops": []}')
    w("wl-stream-2^32.json", wl(['{"id": "k", "kind": "barrier", "stream": 4294967296}']))
    w("wl-dup-ids.json", wl(['{"id": "a", "kind": "barrier"}', '{"id": "a", "kind": "barrier"}']))
    w("wl-self-dep.json", wl(['{"id": "a", "kind": "barrier", "deps": ["a"]}']))
    w("wl-missing-dep.json", wl(['{"id": "a", "kind": "barrier", "deps": ["nowhere"]}']))
    w("wl-bad-utf8.json", wl(['{"id": "a\xff", "kind": "barrier"}']).encode("latin-1"))
    w("wl-format-version-9.json", '{"format_version": 9, "name": "x", "ops": []}')
    w("wl-block-zero.json", wl([K.replace('"block": 32', '"block": 0') % ("1", '{"per_block_ns": 1}')]))
    w("wl-threads-over-profile.json", wl([K.replace('"block": 32', '"block": 4096') % ("1", '{"per_block_ns": 1}')]))
    # Valid, larger workloads that must simulate correctly and fast.
    w("ok-blocks-4m.json", wl([K % ("4194304", '{"per_block_ns": 1000}')]))
    w("ok-chain-2000.json", wl(['{"id": "o0", "kind": "kernel", "grid": 132, "block": 128, "duration": {"per_block_ns": 1000}}'] +
      ['{"id": "o%d", "kind": "kernel", "grid": 132, "block": 128, "duration": {"per_block_ns": 1000}, "deps": ["o%d"]}' % (i, i - 1) for i in range(1, 2000)]))
    w("ok-max-values.json", wl(['{"id": "k", "kind": "kernel", "grid": 1, "block": 32, "duration": {"per_block_ns": 1099511627776}}',
                                '{"id": "c", "kind": "h2d", "bytes": 17592186044416}']))

    # --- traces ------------------------------------------------------------------------------------------
    def trace(spans, extra_top=None):
        meta = {"streamlab_trace_format": 1, "backend": "sim", "device_name": "d", "profile": "p", "policy": "x",
                "workload": "w", "workload_hash": "0", "version": "0", "date": "2026-01-01"}
        ev = []
        for (op, start, end) in spans:
            ev.append('{"name": "k", "cat": "kernel", "ph": "X", "ts": 0, "dur": 0, "pid": 0, "tid": 1, '
                      '"args": {"op": %d, "op_id": "k%d", "engine": "sm", "stream": 1, "start_ns": %s, "end_ns": %s}}'
                      % (op, op, start, end))
        return '{"traceEvents": [%s], "otherData": %s%s}' % (",".join(ev), json.dumps(meta), extra_top or "")

    w("tr-start-min.json", trace([(0, "-9223372036854775808", "0")]))
    w("tr-duration-overflow.json", trace([(0, "-4611686018427387904", "4611686018427387904")]))
    w("tr-end-max.json", trace([(0, "0", "9223372036854775807")]))
    w("ok-trace-far-apart.json", trace([(0, "-2305843009213693952", "-2305843009213693951"), (1, "2305843009213693951", "2305843009213693952")]))
    w("tr-deep.json", '{"traceEvents": ' + "[" * 60000 + "]" * 60000 + "}")
    w("tr-truncated.json", trace([(0, "0", "10")])[:-20])
    w("tr-pid-1e10.json", trace([(0, "0", "10")]).replace('"pid": 0', '"pid": 10000000000'))
    w("tr-blocks-bad.json", trace([(0, "0", "10")], ', "streamlabBlocks": [[0, 0, 0, -9223372036854775808, 0]]'))
    w("tr-blocks-deep.json", trace([(0, "0", "10")], ', "streamlabBlocks": [' + "[" * 300 + "]" * 300 + "]"))
    w("tr-blocks-end-2^62.json", trace([(0, "0", "10")], ', "streamlabBlocks": [[0, 0, 0, 0, 4611686018427387904]]'))
    w("tr-block-backwards.json", trace([(0, "0", "10")], ', "streamlabBlocks": [[0, 0, 0, 10, 5]]'))
    w("tr-span-backwards.json", trace([(0, "100", "10")]))
    w("tr-bad-utf8.json", trace([(0, "0", "10")]).replace('"op_id": "k0"', '"op_id": "k\xff"').encode("latin-1"))
    w("tr-no-events.json", '{"otherData": {"streamlab_trace_format": 1}}')
    w("tr-is-a-workload.json", wl(['{"id": "b", "kind": "barrier"}']))
    w("ok-trace.json", trace([(0, "0", "1000"), (1, "500", "2500")]))

    # --- device profiles -----------------------------------------------------------------------------------
    base = json.load(open(base_profile))
    def prof(name, field, value):
        p = json.loads(json.dumps(base))
        p["params"][field]["value"] = value
        w(name, json.dumps(p).replace('"__inf__"', "1e999"))
    prof("pr-threads-1e10.json", "max_threads_per_block", 1e10)
    prof("pr-sm-1e300.json", "sm_count", 1e300)
    prof("pr-gbps-tiny.json", "dram_gbps", 1e-300)
    prof("pr-launch-1e15.json", "kernel_launch_ns", 1e15)
    prof("pr-copy-engines-100.json", "copy_engines", 100)
    prof("pr-priority-neg-1e9.json", "priority_greatest", -1e9)
    prof("pr-regs-2^40.json", "registers_per_sm", 2 ** 40)
    prof("pr-sm-zero.json", "sm_count", 0)
    prof("pr-sm-fraction.json", "sm_count", 131.5)
    prof("pr-launch-negative.json", "kernel_launch_ns", -1)
    prof("pr-launch-1e999.json", "kernel_launch_ns", "__inf__")
    p = json.loads(json.dumps(base)); p["params"]["sm_count"] = json.loads("[" * 300 + "]" * 300)
    w("pr-deep.json", json.dumps(p))
    p = json.loads(json.dumps(base)); del p["params"]["sm_count"]
    w("pr-missing-sm-count.json", json.dumps(p))
    w("pr-is-a-workload.json", wl(['{"id": "b", "kind": "barrier"}']))


    # --- traces of other tools, for `streamlab import` ------------------------------------------------
    def kineto(ts="1.000", dur="1.000", grid="2", stream="7", bytes_=None):
        call = ('{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":%s,"dur":%s,'
                '"args":{"cbid":1,"correlation":1}}' % (ts, dur))
        work = ('{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":3,"dur":1,"args":{"stream":%s,'
                '"correlation":1,"grid":[%s,1,1],"block":[32,1,1],"registers per thread":32}}' % (stream, grid))
        if bytes_ is not None:
            work = ('{"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD (Pinned -> Device)","pid":0,"tid":7,"ts":3,'
                    '"dur":1,"args":{"stream":7,"correlation":1,"bytes":%s}}' % bytes_)
        return '{"schemaVersion":1,"traceEvents":[%s,%s]}' % (call, work)

    w("ok-import-kineto.json", kineto())
    w("im-kineto-grid-2^32+1.json", kineto(grid="4294967297"))
    w("im-kineto-stream-2^32+7.json", kineto(stream="4294967303"))
    w("im-kineto-ts-1e17us.json", kineto(ts="99999999999999999"))
    w("im-kineto-dur-1e300.json", kineto(dur="1e300"))
    w("im-kineto-bytes-2^62.json", kineto(bytes_="4611686018427387904"))
    w("im-kineto-truncated.json", kineto()[:-30])
    with gzip.open(os.path.join(out, "im-kineto-truncated.json.gz"), "wb") as f:
        f.write(kineto().encode() * 50)
    whole = open(os.path.join(out, "im-kineto-truncated.json.gz"), "rb").read()
    w("im-kineto-truncated.json.gz", whole[: len(whole) // 2])
    # Nsight Systems exports: the schema the importer's tests use and its fuzz target's first seed.
    here = os.path.dirname(os.path.abspath(__file__))
    header = open(os.path.join(here, "..", "support", "nsys_export_schema.hpp")).read()
    schema = header.split('R"SQL(', 1)[1].split(')SQL"', 1)[0]
    rows = open(os.path.join(here, "..", "fuzz", "corpus", "import_nsys", "two-streams-wait.sql")).read()

    def nsys(name, change=""):
        db = sqlite3.connect(os.path.join(out, name))
        db.executescript(schema + rows + change)
        db.commit()
        db.close()

    nsys("ok-import-nsys.sqlite")
    nsys("im-nsys-call-ends-before-start.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start = 31000 WHERE correlationId = 16;")
    nsys("im-nsys-name-not-utf8.sqlite", "UPDATE StringIds SET value = CAST(X'67658E6D' AS TEXT) WHERE id = 7;")
    nsys("im-nsys-grid-2^32+1.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 4294967297;")
    nsys("im-nsys-bytes-negative.sqlite", "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -4096;")
    nsys("im-nsys-schema-9.sqlite", "UPDATE META_DATA_EXPORT SET value = '9.0';")
    nsys("im-nsys-no-runtime.sqlite", "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;")
    good = open(os.path.join(out, "ok-import-nsys.sqlite"), "rb").read()
    w("im-nsys-truncated.sqlite", good[: len(good) // 2])
    w("im-nsys-header-only.sqlite", b"SQLite format 3\x00" + bytes(range(256)) * 8)

    return sorted(os.listdir(out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(len(write_inputs(sys.argv[1], sys.argv[2])), "inputs in", sys.argv[1])
