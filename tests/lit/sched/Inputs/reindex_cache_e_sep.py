sch.reindex_cache_write("C", 0, "global", lambda i, j: (i, IndexMap.AXIS_SEPARATOR, j))
