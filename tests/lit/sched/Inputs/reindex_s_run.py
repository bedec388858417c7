sch.reindex("B", ("read", 0))
sch.reindex_cache_write("C", 0, "local", lambda i, j: (j, i))
sch.reorder_block_iter_var("C", [1, 0])
sch.annotate_buffer_access("C", 0, "read", lambda vj, vi: (vi, (0, 12)))
