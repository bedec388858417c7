sch.cache_write("C", 1, "local")
