sch.blockize([])
