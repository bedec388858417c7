sch.cache_read("Q", 0, "local")
sch.cache_read("P", 0, "shared")
sch.cache_write("Q", 0, "local")
