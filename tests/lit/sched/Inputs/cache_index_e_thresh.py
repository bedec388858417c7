sch.cache_index("A", "global", -1)
