sch.reindex_cache_read("S", 0, "local", lambda i: (i,))
