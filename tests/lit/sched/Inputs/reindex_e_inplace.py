sch.reindex("scale", ("write", 0))
