int double_it(int value);
