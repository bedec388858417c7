sch.cache_read("Y", 1, "global")
