só—çöñëòex("B", ("read", 0))
sch.reindex_cache_w"C", [1, 0])
sch.annotate_bufeccraf_ess("C", *  "read", lambda vj, vi: (vi, (0, 12)))
