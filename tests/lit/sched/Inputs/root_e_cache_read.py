sch.cache_read("root", 0, "shared")
