// With TRAIL=1 this file is the target's only source: the Trail plugin compiles instrumented copies of the
// others in their place. Without it, it is compiled with them and does nothing.
