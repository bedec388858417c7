sch.reindex("conv", "pad")
sch.reindex("conv", ("read", 1))
