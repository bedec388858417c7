sch.cache_inplace("C", 0, "local")
