b = sch.get_block("C")
sch.reindex(b, ("write", 0))
sch.reindex(b, "A")
