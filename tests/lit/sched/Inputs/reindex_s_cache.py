sch.reindex_cache_read("B", 0, "shared", lambda vi, vj: (vj // 4, vi, vj % 4))
sch.reindex_cache_write("C", 0, "local", lambda i, j: (j, i))
print(sch.trace)
