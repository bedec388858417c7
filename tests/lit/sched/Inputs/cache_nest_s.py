sch.cache_read("B", 0, "global")
sch.cache_write("A", 0, "local")
print(sch.trace)
