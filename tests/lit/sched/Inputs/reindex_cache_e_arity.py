sch.reindex_cache_read("B", 0, "shared", lambda i: (i,))
