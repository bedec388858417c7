i, j = sch.get_loops("D")
sch.blockize(j)
sch.cache_write("D", 0, "global")
sch.reindex("D_global", ("write", 0))
