sch.reindex_cache_write("scale", 0, "local", lambda v0, v1: (v1, v0))
