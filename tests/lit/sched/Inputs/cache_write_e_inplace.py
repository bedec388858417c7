sch.cache_write("scale", 0, "shared")
