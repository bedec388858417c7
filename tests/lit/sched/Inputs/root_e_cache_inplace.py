sch.cache_inplace("root", 0, "shared")
