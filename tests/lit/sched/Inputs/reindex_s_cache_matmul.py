b = sch.get_block("C")
sch.reindex_cache_read(b, 1, "shared", lambda i, j, k: (k, j))
sch.reindex_cache_write(b, 0, "local", lambda i, j, k: (i, j))
