// The only source with TRAIL=1.
