sch.cache_read("C", ("read", 0), "shared")
sch.set_scope("B", "B", "local")
sch.storage_align("B", ("write", 0), 0, 16, 1)
print(sch.trace)
