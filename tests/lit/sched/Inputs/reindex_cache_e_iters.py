b = sch.get_block("C")
sch.reindex_cache_read(b, 1, "shared", lambda i, j, k: (i, k, j))
