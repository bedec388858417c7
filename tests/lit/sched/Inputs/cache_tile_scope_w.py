sch.cache_write("tile", 0, "global")
