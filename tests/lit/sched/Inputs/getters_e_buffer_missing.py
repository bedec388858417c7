sch.cache_read("C", "Z", "shared")
