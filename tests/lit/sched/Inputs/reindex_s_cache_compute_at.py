i, j = sch.get_loops("C")
sch.compute_at(sch.get_block("B"), i)
sch.reindex_cache_read("C", 0, "local", lambda vi, vj: (vj, vi))
