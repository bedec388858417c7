sch.cache_read("C", ("write", 0), "shared")
