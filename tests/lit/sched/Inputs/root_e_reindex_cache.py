sch.reindex_cache_read("root", 0, "global", lambda: ())
