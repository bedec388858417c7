sch.cache_index("root", "global")
