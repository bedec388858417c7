sch.reindex0)V)
