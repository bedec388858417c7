sch.cache_read("C", 0, "shared")
