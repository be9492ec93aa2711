//! The node's background work with several nodes: the heartbeat (renewing the leases,
//! forgetting dead nodes, taking over orphaned rooms) and the listener of the other nodes'
//! notices, which it hands to the rooms loaded here.

use std::time::Duration;

use sqlx::postgres::PgListener;
use tokio::time::Instant;
use uuid::Uuid;

use super::lease::Cluster;
use crate::db::{CHANNEL, Db, now_ms};
use crate::lobby::Lobby;
use crate::metrics;
use crate::room::Heard;
use crate::rooms::Rooms;

/// Starts the node's background work: the heartbeat and the listener (none on one node).
pub fn start(cluster: &Cluster, db: Db, rooms: Rooms, lobby: Lobby) -> Vec<tokio::task::JoinHandle<()>> {
    if !cluster.is_shared() {
        return Vec::new();
    }
    metrics::node(db.node());
    vec![
        tokio::spawn(heartbeat(cluster.clone(), db.clone(), rooms.clone())),
        tokio::spawn(listen(db, rooms, lobby)),
    ]
}

async fn heartbeat(cluster: Cluster, db: Db, rooms: Rooms) {
    let mut tick = tokio::time::interval(cluster.lease_tick());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut first = true;
    loop {
        tick.tick().await;
        let sent = Instant::now();
        match db.heartbeat(cluster.lease_ms()).await {
            Ok(beat) => {
                cluster.renewed(&beat.held, sent);
                if beat.joined && !first {
                    // Another node took this one for dead (a late beat) and forgot its
                    // presence: the rooms here say again who is on this node.
                    tracing::warn!("this node was taken for dead: its rooms publish their presence again");
                    rooms.hear_all(Heard::Forgotten);
                }
                first = false;
            }
            Err(error) => tracing::warn!(%error, "could not renew this node's leases"),
        }
        cluster.set_gauge();
        match db.reap_nodes().await {
            // The other nodes hear it from the database; this one skips its own notices.
            Ok(gone) => gone.into_iter().for_each(|room| rooms.hear(room, Heard::Presence)),
            Err(error) => tracing::warn!(%error, "could not forget the dead nodes"),
        }
        match db.orphaned_rooms().await {
            Ok(orphans) => {
                for room in orphans {
                    // Loading it is enough: its actor takes the lease when it needs one.
                    match rooms.get(room).await {
                        Ok(handle) => handle.hear(Heard::Lease),
                        Err(error) => tracing::warn!(%room, %error, "could not load an orphaned room"),
                    }
                }
            }
            Err(error) => tracing::warn!(%error, "could not look for orphaned rooms"),
        }
    }
}

/// Hears the other nodes' notices and hands them to the rooms loaded here.
async fn listen(db: Db, rooms: Rooms, lobby: Lobby) {
    let node = db.node().to_string();
    loop {
        let mut listener = match PgListener::connect(db.url()).await {
            Ok(listener) => listener,
            Err(error) => {
                tracing::warn!(%error, "could not connect to listen for the other nodes");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if let Err(error) = listener.listen(CHANNEL).await {
            tracing::warn!(%error, "could not listen for the other nodes");
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        // Listening (again): whatever was said while this node was not is read from the log.
        metrics::resync();
        rooms.hear_all(Heard::Resync);
        loop {
            match listener.try_recv().await {
                Ok(Some(notice)) => {
                    for line in notice.payload().lines() {
                        hear(&rooms, &lobby, &node, line);
                    }
                }
                Ok(None) => {
                    tracing::warn!("lost the connection that listens for the other nodes; reconnecting");
                    break;
                }
                Err(error) => {
                    tracing::warn!(%error, "listening for the other nodes failed; reconnecting");
                    break;
                }
            }
        }
        drop(listener);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// One notice line (`db::CHANNEL`'s format).
fn hear(rooms: &Rooms, lobby: &Lobby, node: &str, line: &str) {
    // The lobby's lines end in free text (a JSON event): split off only their head.
    if let [kind @ ("l" | "t"), from, _sent, rest] = line.splitn(4, ' ').collect::<Vec<_>>()[..] {
        if from != node {
            lobby.hear(kind, rest);
        }
        return;
    }
    let fields: Vec<&str> = line.split(' ').collect();
    let (Some(kind), Some(from), Some(sent), Some(room)) =
        (fields.first(), fields.get(1), fields.get(2), fields.get(3))
    else {
        tracing::warn!(line, "a notice that does not parse");
        return;
    };
    if *from == node {
        return;
    }
    if let Ok(sent) = sent.parse::<i64>() {
        metrics::notify_lag(Duration::from_millis(u64::try_from(now_ms() - sent).unwrap_or(0)));
    }
    let Ok(room) = Uuid::parse_str(room) else { return };
    let heard = match *kind {
        "a" => {
            let game = fields.get(4).and_then(|g| g.parse().ok());
            let number = fields.get(5).and_then(|n| n.parse().ok());
            match (game, number) {
                (Some(game), Some(number)) => Heard::Action { game, number },
                _ => Heard::Room,
            }
        }
        "p" => Heard::Presence,
        _ => Heard::Room,
    };
    rooms.hear(room, heard);
}
