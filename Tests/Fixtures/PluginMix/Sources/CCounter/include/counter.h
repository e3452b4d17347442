int counter_next(void);
