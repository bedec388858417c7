sch.reindex_cache_read("B", 0, "texture2", lambda i, j: (i, j))
