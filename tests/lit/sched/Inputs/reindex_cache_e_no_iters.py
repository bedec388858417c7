sch.reindex_cache_read("C", 0, "global", lambda: ())
