//! Controller coupling across paths: before an event of one path (an ACK, a timer) a coupled
//! controller (LIA, RFC 6356; OLIA, Khalili et al., IEEE/ACM ToN 2013; BALIA, Peng et al.,
//! IEEE/ACM ToN 2016; wVegas, Cao et al., IEEE TPDS 2012; `cc/coupled/`) gets every path's
//! view, with `active` set for the paths that are usable (only those count in its sums).

use super::paths::MultipathPath;
use crate::cc::SubflowCcView;

pub struct Coupling {
    /// The paths' controllers are coupled (all paths run the same controller).
    coupled: bool,
    /// Reused between events: no allocation per packet.
    views: Vec<SubflowCcView>,
}

impl Coupling {
    /// `coupled`: whether the paths' controller is a coupled one; `paths`: the path count.
    pub fn new(coupled: bool, paths: usize) -> Self {
        Self { coupled, views: Vec::with_capacity(paths) }
    }

    pub fn is_coupled(&self) -> bool {
        self.coupled
    }

    /// Hand every path's view to path `i`'s controller (nothing for uncoupled controllers:
    /// inline, so that their every ACK pays one test, not a call).
    #[inline(always)]
    pub fn couple<P: MultipathPath>(&mut self, paths: &mut [P], i: usize) {
        if self.coupled {
            self.share_views(paths, i);
        }
    }

    /// `couple` for coupled controllers: every path's view, then path `i`'s controller reads them.
    fn share_views<P: MultipathPath>(&mut self, paths: &mut [P], i: usize) {
        self.views.clear();
        for p in paths.iter() {
            let mut v = p.coupled_view().unwrap_or_default();
            v.active = p.usable();
            self.views.push(v);
        }
        paths[i].couple(&self.views, i);
    }
}
