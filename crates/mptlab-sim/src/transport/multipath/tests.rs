//! Tests of the multipath core's parts with a scripted path type (the transports' own tests,
//! `mptcp` and `quic/tests_conn.rs`, cover their use of it end to end).

use super::*;
use crate::cc::SubflowCcView;
use crate::sched::{Decision, PathView, SchedConfig};

/// A path whose every answer is set by the test; `coupled_with` records what `couple` got.
#[derive(Default)]
struct Scripted {
    usable: bool,
    prefs: Option<PathPrefs>,
    cwnd: u64,
    coupled_with: Option<(Vec<SubflowCcView>, usize)>,
}

impl MultipathPath for Scripted {
    fn usable(&self) -> bool {
        self.usable
    }
    fn prefs(&self) -> PathPrefs {
        self.prefs.unwrap_or(PathPrefs::default_for(0))
    }
    fn coupled_view(&self) -> Option<SubflowCcView> {
        Some(SubflowCcView { cwnd: self.cwnd, ..SubflowCcView::default() })
    }
    fn couple(&mut self, views: &[SubflowCcView], me: usize) {
        self.coupled_with = Some((views.to_vec(), me));
    }
}

fn path(usable: bool, backup: bool) -> Scripted {
    Scripted { usable, prefs: Some(PathPrefs { priority: 7, backup }), ..Scripted::default() }
}

fn core(sched: &str, picks_only_choice: bool, coupled: bool) -> MultipathCore {
    MultipathCore::new(SchedConfig::default_for(sched).unwrap().build_seeded(1), picks_only_choice, coupled, 4)
}

#[test]
fn preferences_default_to_the_path_index_and_no_backup() {
    assert_eq!(PathPrefs::default_for(3), PathPrefs { priority: 3, backup: false });
    let p = PathPrefs::from_lists(1, &[5, 9], &[true]);
    assert_eq!(p, PathPrefs { priority: 9, backup: false }, "a missing backup entry is not a backup");
    assert_eq!(PathPrefs::from_lists(0, &[5, 9], &[true]), PathPrefs { priority: 5, backup: true });
}

#[test]
fn the_shortcut_names_the_only_path_that_can_send() {
    let c = core("minrtt", true, false);
    let paths = [path(true, false), path(true, false), path(false, false)];
    assert_eq!(c.shortcut(&paths, |_| false), Shortcut::Nowhere);
    // Path 2 "could send" but is not usable: it does not count.
    let only_1 = |p: &Scripted| std::ptr::eq(p, &paths[1]) || std::ptr::eq(p, &paths[2]);
    assert_eq!(c.shortcut(&paths, only_1), Shortcut::Only(1));
    assert_eq!(c.shortcut(&paths, |_| true), Shortcut::Ask, "two paths can send: a choice");
}

#[test]
fn the_shortcut_asks_for_a_lone_backup_or_a_scheduler_that_may_wait() {
    let paths = [path(true, false), path(true, true)];
    let only_backup = |p: &Scripted| std::ptr::eq(p, &paths[1]);
    assert_eq!(core("minrtt", true, false).shortcut(&paths, only_backup), Shortcut::Ask, "the scheduler may wait for path 0");
    let only_0 = |p: &Scripted| std::ptr::eq(p, &paths[0]);
    assert_eq!(core("blest", false, false).shortcut(&paths, only_0), Shortcut::Ask);
    assert_eq!(core("blest", false, false).shortcut(&paths, |_| false), Shortcut::Nowhere);
}

#[test]
fn a_placement_keeps_only_the_named_paths_that_can_take_the_chunk() {
    let can = |i: usize| i != 1;
    assert_eq!(MultipathCore::placement(Decision::Send(0), 3, can), Placement::One(0));
    assert_eq!(MultipathCore::placement(Decision::Send(1), 3, can), Placement::Nowhere);
    assert_eq!(MultipathCore::placement(Decision::Send(5), 3, |_| true), Placement::Nowhere, "out of range");
    assert_eq!(MultipathCore::placement(Decision::Wait, 3, |_| true), Placement::Nowhere);
    let both = MultipathCore::placement(Decision::Redundant(0b111), 3, can);
    assert_eq!(both, Placement::Copies(0b101));
    assert_eq!(both.first(), Some(0));
    assert_eq!(MultipathCore::placement(Decision::Redundant(0b110), 3, can).first(), Some(2));
    assert_eq!(MultipathCore::placement(Decision::Redundant(0b010), 3, can), Placement::Nowhere);
    assert_eq!(MultipathCore::placement(Decision::Redundant(0b1000), 3, |_| true), Placement::Nowhere, "bit beyond the paths");
}

#[test]
fn views_carry_the_core_fields_and_no_room_on_unusable_paths() {
    let mut c = core("minrtt", true, false);
    let paths = [path(false, true), Scripted { usable: true, cwnd: 3000, ..Scripted::default() }];
    let views = c.fill_views(&paths, |p, _| PathView { id: 99, has_space: true, can_queue: true, cwnd: p.cwnd, ..PathView::default() });
    assert_eq!(views.len(), 2);
    assert_eq!((views[0].id, views[0].usable, views[0].has_space, views[0].can_queue), (0, false, false, false));
    assert_eq!((views[0].priority, views[0].backup), (7, true));
    assert_eq!((views[1].id, views[1].usable, views[1].has_space, views[1].can_queue), (1, true, true, true));
    assert_eq!((views[1].priority, views[1].backup, views[1].cwnd), (0, false, 3000));
}

#[test]
fn the_scheduler_decides_on_the_views_it_is_given() {
    let mut c = core("minrtt", true, false);
    let paths = [path(true, false), path(true, false)];
    let conn = crate::sched::ConnView { unsent: 10_000, window_space: 10_000, chunk: 1000, ..Default::default() };
    let srtt = |p: &Scripted| if std::ptr::eq(p, &paths[0]) { 30 } else { 10 };
    let d = c.select(&conn, &paths, |p, usable| PathView { has_space: usable, srtt: srtt(p), mss: 1000, ..PathView::default() });
    assert_eq!(d, Decision::Send(1), "minrtt takes the lower SRTT");
    let backup_1 = [path(true, false), path(true, true)];
    let d = c.select(&conn, &backup_1, |p, usable| PathView {
        has_space: usable && std::ptr::eq(p, &backup_1[1]),
        mss: 1000,
        ..PathView::default()
    });
    assert_eq!(d, Decision::Wait, "a backup path waits while a regular path is usable");
}

#[test]
fn coupling_gives_every_view_with_usable_paths_active() {
    let mut c = core("minrtt", true, true);
    let mut paths =
        [Scripted { usable: true, cwnd: 10, ..Scripted::default() }, Scripted { usable: false, cwnd: 20, ..Scripted::default() }];
    c.couple(&mut paths, 1);
    let (views, me) = paths[1].coupled_with.take().expect("path 1 was coupled");
    assert_eq!(me, 1);
    assert_eq!(views.iter().map(|v| (v.active, v.cwnd)).collect::<Vec<_>>(), [(true, 10), (false, 20)]);
    assert!(paths[0].coupled_with.is_none(), "only the path of the event");
    let mut uncoupled = core("minrtt", true, false);
    uncoupled.couple(&mut paths, 0);
    assert!(paths[0].coupled_with.is_none(), "uncoupled controllers get nothing");
}
