sch.reindex("B", ("read", 0))
sch.reindex("C", "C")
print(sch.trace)
