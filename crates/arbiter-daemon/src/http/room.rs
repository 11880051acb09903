//! Places for connections, so that one client cannot take them all (issue 36): at most
//! `total` at once and `per_client` from one address. Past a cap the place of the
//! oldest *idle* connection is taken back (its holder is told to close): of the same
//! address when that address is at its share, else of the address holding the most,
//! else any idle one. A busy connection (a request in flight, a stream streaming, a
//! subscribed WebSocket) is never closed to make room; only when every place is busy is
//! a new connection refused. The HTTP listener ([`super::listen`]) and the LiveChess
//! API's WebSockets (the daemon's `livechess_api`) each keep one.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use tokio::sync::Notify;

/// One connection's place.
#[derive(Debug)]
struct Place {
    ip: IpAddr,
    /// Busy reasons held now ([`Seat::busy`]).
    busy: usize,
    /// When it last had nothing in flight (its opening, at first).
    idle_since: Instant,
    /// Told when the place is taken back.
    close: Arc<Notify>,
}

#[derive(Debug, Default)]
struct Places {
    places: HashMap<u64, Place>,
    next_id: u64,
}

/// The places of one listener.
#[derive(Debug)]
pub struct Room {
    total: usize,
    per_client: usize,
    places: Mutex<Places>,
}

/// A place taken ([`Room::take`]).
pub struct Taken {
    pub seat: Seat,
    /// The address of the idle connection closed to make room, if one was.
    pub made_room_from: Option<IpAddr>,
}

impl Room {
    pub fn new(total: usize, per_client: usize) -> Arc<Room> {
        Arc::new(Room {
            total,
            per_client,
            places: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Places> {
        self.places.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Connections holding a place now.
    pub fn open(&self) -> usize {
        self.lock().places.len()
    }

    /// A place for a new connection from `ip`, taking back the oldest idle one when a
    /// cap is reached; why not when every place that could be taken back is busy.
    pub fn take(self: &Arc<Self>, ip: IpAddr) -> Result<Taken, String> {
        let mut p = self.lock();
        let victim = p.room_for(self.total, self.per_client, ip)?;
        let made_room_from = victim.and_then(|id| p.places.remove(&id)).map(|gone| {
            gone.close.notify_one();
            gone.ip
        });
        let id = p.next_id;
        p.next_id += 1;
        let close = Arc::new(Notify::new());
        p.places.insert(
            id,
            Place {
                ip,
                busy: 0,
                idle_since: Instant::now(),
                close: Arc::clone(&close),
            },
        );
        Ok(Taken {
            seat: Seat {
                room: Arc::clone(self),
                id,
                close,
            },
            made_room_from,
        })
    }
}

impl Places {
    fn count_from(&self, ip: IpAddr) -> usize {
        self.places.values().filter(|c| c.ip == ip).count()
    }

    /// The place idle the longest among those `which` picks.
    fn oldest_idle(&self, which: impl Fn(&Place) -> bool) -> Option<u64> {
        self.places
            .iter()
            .filter(|(_, c)| c.busy == 0 && which(c))
            .min_by_key(|(id, c)| (c.idle_since, **id))
            .map(|(id, _)| *id)
    }

    /// The place to take back for a new connection from `ip` (none while under the
    /// caps), or why there is none.
    fn room_for(&self, total: usize, per_client: usize, ip: IpAddr) -> Result<Option<u64>, String> {
        let from_ip = self.count_from(ip);
        if from_ip >= per_client {
            return self.oldest_idle(|c| c.ip == ip).map(Some).ok_or_else(|| {
                format!(
                    "{from_ip} connections open from {ip}, the most one address may have, all busy"
                )
            });
        }
        if self.places.len() < total {
            return Ok(None);
        }
        // The client holding the most gives way first; any idle one else.
        let mut by_ip: HashMap<IpAddr, usize> = HashMap::new();
        for c in self.places.values() {
            *by_ip.entry(c.ip).or_insert(0) += 1;
        }
        let heaviest = by_ip.into_iter().max_by_key(|(_, n)| *n).map(|(ip, _)| ip);
        self.oldest_idle(|c| Some(c.ip) == heaviest)
            .or_else(|| self.oldest_idle(|_| true))
            .map(Some)
            .ok_or_else(|| {
                format!(
                    "{} connections open, the most taken at once, all busy",
                    self.places.len()
                )
            })
    }
}

/// Holds one connection's place; gives it back when dropped.
pub struct Seat {
    room: Arc<Room>,
    id: u64,
    close: Arc<Notify>,
}

impl Seat {
    /// Resolves when the place is taken back for another connection: close then.
    pub async fn taken_back(&self) {
        self.close.notified().await
    }

    /// Busy (never taken back) until the guard is dropped.
    pub fn busy(&self) -> Busy {
        if let Some(place) = self.room.lock().places.get_mut(&self.id) {
            place.busy += 1;
        }
        Busy {
            room: Arc::clone(&self.room),
            id: self.id,
        }
    }

    /// Something happened on the connection: idle from now.
    pub fn touch(&self) {
        if let Some(place) = self.room.lock().places.get_mut(&self.id) {
            place.idle_since = Instant::now();
        }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        // Gone already when it was taken back.
        self.room.lock().places.remove(&self.id);
    }
}

/// A reason a connection is busy ([`Seat::busy`]).
pub struct Busy {
    room: Arc<Room>,
    id: u64,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(place) = self.room.lock().places.get_mut(&self.id) {
            place.busy = place.busy.saturating_sub(1);
            if place.busy == 0 {
                place.idle_since = Instant::now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(room: &Room, seat: &Seat) -> bool {
        room.lock().places.contains_key(&seat.id)
    }

    #[test]
    fn places_are_counted_by_address_and_given_back() {
        let room = Room::new(3, 2);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let s1 = room.take(a).unwrap().seat;
        let _b1 = s1.busy();
        let s2 = room.take(a).unwrap().seat;
        let _b2 = s2.busy();
        assert!(room.take(a).is_err(), "per client, all busy");
        let s3 = room.take(b).unwrap().seat;
        let _b3 = s3.busy();
        assert!(room.take(b).is_err(), "in all, all busy");
        drop(s1);
        assert!(room.take(a).is_ok(), "given back");
    }

    #[test]
    fn the_oldest_idle_connection_makes_room_first_of_the_client_that_has_most() {
        let room = Room::new(3, 3);
        let flood: IpAddr = "10.0.0.1".parse().unwrap();
        let arbiter: IpAddr = "10.0.0.2".parse().unwrap();
        let f1 = room.take(flood).unwrap().seat;
        let f2 = room.take(flood).unwrap().seat;
        let _f2_busy = f2.busy();
        let f3 = room.take(flood).unwrap().seat;
        // The flood's fourth: its own oldest idle one (f1; f2 is busy) makes room.
        let f4 = room.take(flood).unwrap();
        assert_eq!(f4.made_room_from, Some(flood));
        assert!(!has(&room, &f1), "f1 taken back");
        // The arbiter at the total cap: the flood (the most) gives way, oldest idle first.
        let a1 = room.take(arbiter).unwrap().seat;
        let _a1_busy = a1.busy();
        assert!(!has(&room, &f3), "f3, the oldest idle, taken back");
        assert!(has(&room, &f2) && has(&room, &f4.seat));
        assert_eq!(room.open(), 3);
    }
}
