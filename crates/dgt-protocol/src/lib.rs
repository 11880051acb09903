//! The DGT e-board and clock serial protocol as a sans-IO codec, plus .dgtcap capture files.
