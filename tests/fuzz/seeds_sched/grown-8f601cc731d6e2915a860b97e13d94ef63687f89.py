sch.annotate_buffer_access("B", 5, "read", lambda vi, vj: ((vj, vj + 1),))
