b = sch.get_block("update")
blocks = sch.cache_inplace(b, 0, "local")
sch.cache_inplace("scale", "B", "global")
print(sch.trace)
