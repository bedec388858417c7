sch.reindex_cache_write("C", 0, "local", lambda i, j: (i, j, k))
