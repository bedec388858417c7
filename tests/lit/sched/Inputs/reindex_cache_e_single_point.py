sch.reindex_cache_read("S", 1, "local", lambda i: (i,))
