//! The chat of the room's table: who reads it, and its frames.

use super::Machine;
use crate::model::seat::Seat;
use crate::model::table::{CHAT_HISTORY, ChatBody, ChatLine, ChatWire};
use crate::protocol::{Frame, Protocol, ServerMessage, encode_as};

impl Machine {
    /// Whether a socket in `seat` (`None`: a spectator) reads the chat: the players always,
    /// spectators only while both players allow it.
    pub(super) fn reads_chat(&self, seat: Option<Seat>) -> bool {
        seat.is_some() || self.log.chat_public == [true, true]
    }

    pub(super) fn add_chat(&mut self, lines: Vec<ChatLine>) {
        let frames = self.chat_frames(false, lines.iter());
        for line in lines {
            self.log.chat_last = self.log.chat_last.max(line.number);
            self.log.chat.push_back(line);
            if self.log.chat.len() > CHAT_HISTORY {
                self.log.chat.pop_front();
            }
        }
        self.send_to_readers(&frames);
    }

    pub(super) fn set_chat_public(&mut self, public: [bool; 2]) {
        let before = self.reads_chat(None);
        self.log.chat_public = public;
        self.broadcast();
        if self.reads_chat(None) != before {
            self.send_chat_to_spectators(before);
        }
    }

    /// The spectators start (or stop) reading: the whole history, or nothing.
    pub(super) fn send_chat_to_spectators(&mut self, before: bool) {
        let frames = if before {
            self.chat_frames(true, [].iter())
        } else {
            self.chat_frames(true, self.log.chat.iter())
        };
        self.send_each(|member| member.seat.is_none(), &frames);
    }

    /// The whole chat to every reader (each player's words are under his new role).
    pub(super) fn send_chat_to_readers(&mut self, full: bool, _only: Option<u64>) {
        if self.log.chat.is_empty() {
            return;
        }
        let frames = self.chat_frames(full, self.log.chat.iter());
        self.send_to_readers(&frames);
    }

    pub(super) fn send_to_readers(&mut self, frames: &[Frame; 2]) {
        let spectators = self.reads_chat(None);
        self.send_each(|member| member.seat.is_some() || spectators, frames);
    }

    /// A `chat` frame in each protocol, by [`Protocol`] (1, then 2).
    pub(super) fn chat_frames<'a>(
        &self,
        full: bool,
        lines: impl Iterator<Item = &'a ChatLine> + Clone,
    ) -> [Frame; 2] {
        [Protocol::V1, Protocol::V2].map(|protocol| self.chat_frame(protocol, full, lines.clone()))
    }

    pub(super) fn chat_frame<'a>(
        &self,
        protocol: Protocol,
        full: bool,
        lines: impl Iterator<Item = &'a ChatLine>,
    ) -> Frame {
        let messages: Vec<ChatWire<'_>> = lines
            .map(|line| ChatWire {
                n: line.number,
                from: self.role_of(line.seat),
                text: match &line.body {
                    ChatBody::Text(text) => Some(text),
                    ChatBody::Quick(_) => None,
                },
                quick: match line.body {
                    ChatBody::Quick(quick) => Some(quick),
                    ChatBody::Text(_) => None,
                },
                at: line.at,
            })
            .collect();
        encode_as(protocol, &ServerMessage::Chat { full, messages: &messages })
    }
}
