sch.cache_read("B", 0, "shared")
sch.cache_read("C", 0, "local")
sch.cache_write("C", 0, "local")
print(sch.trace)
