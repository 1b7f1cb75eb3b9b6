package standby

import "time"

// Discard is the observer the wiring gives every standby reconciler: a standby's decisions take no effect,
// so it measures nothing. It has the methods of each controller's Observer.
type Discard struct{}

// ScheduleLag discards a CronJob's schedule lag.
func (Discard) ScheduleLag(time.Duration) {}

// MissedSchedules discards a CronJob's missed times.
func (Discard) MissedSchedules(int) {}

// Failover discards a Guestbook's failover.
func (Discard) Failover(time.Duration) {}
