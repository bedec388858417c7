sch.cache_write("C", "A", "local")
