sch.cache_index("A", "global")
print(sch.trace)
