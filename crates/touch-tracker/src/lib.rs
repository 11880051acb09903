//! Touch-move tracker and arbiter rulings: moves from lift/place events, illegal moves at the clock press, penalties and restoration.
