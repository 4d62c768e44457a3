// Package queue is a persistent-ish job queue with priorities, retries and leases.
//
// Test fixture for the apply-edit merge; it is not built by anything.
package queue

import (
	"container/heap"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// Priority orders jobs: higher runs first.
type Priority int

const (
	Low Priority = iota
	Normal
	High
)

// DefaultMaxAttempts is how often a job is tried before it is dead.
const DefaultMaxAttempts = 5

var (
	// ErrEmpty is returned by Lease when no job is ready.
	ErrEmpty = errors.New("queue: empty")
	// ErrUnknownLease is returned for an expired or foreign lease.
	ErrUnknownLease = errors.New("queue: unknown lease")
)

// Job is one unit of work.
type Job struct {
	ID        string
	Kind      string
	Payload   []byte
	Priority  Priority
	Attempts  int
	NotBefore time.Time
	LastError string
}

// Lease is a job handed to a worker until Deadline.
type Lease struct {
	Token    string
	Job      *Job
	Deadline time.Time
}

// Stats counts jobs by state.
type Stats struct {
	Ready   int
	Delayed int
	Leased  int
	Dead    int
}

type jobHeap []*Job

func (h jobHeap) Len() int { return len(h) }

func (h jobHeap) Less(i, j int) bool {
	if h[i].Priority != h[j].Priority {
		return h[i].Priority > h[j].Priority
	}
	return h[i].NotBefore.Before(h[j].NotBefore)
}

func (h jobHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }

func (h *jobHeap) Push(x any) { *h = append(*h, x.(*Job)) }

func (h *jobHeap) Pop() any {
	old := *h
	n := len(old)
	job := old[n-1]
	*h = old[:n-1]
	return job
}

// Queue holds jobs; it is safe for concurrent use.
type Queue struct {
	mu          sync.Mutex
	ready       jobHeap
	delayed     []*Job
	leases      map[string]*Lease
	dead        []*Job
	maxAttempts int
	leaseFor    time.Duration
	now         func() time.Time
	seq         int
}

// New returns an empty queue whose leases last leaseFor.
func New(leaseFor time.Duration) *Queue {
	return &Queue{
		leases:      make(map[string]*Lease),
		maxAttempts: DefaultMaxAttempts,
		leaseFor:    leaseFor,
		now:         time.Now,
	}
}

// SetMaxAttempts changes how often a job is retried.
func (q *Queue) SetMaxAttempts(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if n < 1 {
		n = 1
	}
	q.maxAttempts = n
}

// Push adds a job; a job with NotBefore in the future waits.
func (q *Queue) Push(job *Job) error {
	if job.ID == "" {
		return fmt.Errorf("queue: job without ID (kind %q)", job.Kind)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if job.NotBefore.After(q.now()) {
		q.delayed = append(q.delayed, job)
		return nil
	}
	heap.Push(&q.ready, job)
	return nil
}

// promote moves delayed jobs whose time has come to the ready heap.
func (q *Queue) promote() {
	now := q.now()
	keep := q.delayed[:0]
	for _, job := range q.delayed {
		if job.NotBefore.After(now) {
			keep = append(keep, job)
			continue
		}
		heap.Push(&q.ready, job)
	}
	q.delayed = keep
}

// expire returns jobs of lapsed leases to the queue.
func (q *Queue) expire() {
	now := q.now()
	for token, lease := range q.leases {
		if now.After(lease.Deadline) {
			delete(q.leases, token)
			q.retry(lease.Job, "lease expired")
		}
	}
}

func (q *Queue) retry(job *Job, reason string) {
	job.Attempts++
	job.LastError = reason
	if job.Attempts >= q.maxAttempts {
		q.dead = append(q.dead, job)
		return
	}
	backoff := time.Duration(1<<uint(job.Attempts)) * time.Second
	job.NotBefore = q.now().Add(backoff)
	q.delayed = append(q.delayed, job)
}

// Lease hands out the most urgent ready job.
func (q *Queue) Lease() (*Lease, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.expire()
	q.promote()
	if q.ready.Len() == 0 {
		return nil, ErrEmpty
	}
	job := heap.Pop(&q.ready).(*Job)
	q.seq++
	lease := &Lease{
		Token:    fmt.Sprintf("%s-%d", job.ID, q.seq),
		Job:      job,
		Deadline: q.now().Add(q.leaseFor),
	}
	q.leases[lease.Token] = lease
	return lease, nil
}

// Ack marks a leased job as done.
func (q *Queue) Ack(token string) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.leases[token]; !ok {
		return ErrUnknownLease
	}
	delete(q.leases, token)
	return nil
}

// Nack gives a leased job back with an error; it is retried later or dies.
func (q *Queue) Nack(token string, cause error) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	lease, ok := q.leases[token]
	if !ok {
		return ErrUnknownLease
	}
	delete(q.leases, token)
	msg := "unknown error"
	if cause != nil {
		msg = cause.Error()
	}
	q.retry(lease.Job, msg)
	return nil
}

// Extend moves a lease's deadline forward.
func (q *Queue) Extend(token string, d time.Duration) (time.Time, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	lease, ok := q.leases[token]
	if !ok {
		return time.Time{}, ErrUnknownLease
	}
	lease.Deadline = lease.Deadline.Add(d)
	return lease.Deadline, nil
}

// Stats reports how many jobs are in each state.
func (q *Queue) Stats() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return Stats{
		Ready:   q.ready.Len(),
		Delayed: len(q.delayed),
		Leased:  len(q.leases),
		Dead:    len(q.dead),
	}
}

// Dead returns the IDs of dead jobs, sorted.
func (q *Queue) Dead() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	ids := make([]string, 0, len(q.dead))
	for _, job := range q.dead {
		ids = append(ids, job.ID)
	}
	sort.Strings(ids)
	return ids
}

// Drain leases and runs every ready job with fn until the queue is empty.
func Drain(q *Queue, fn func(*Job) error) (done, failed int) {
	for {
		lease, err := q.Lease()
		if errors.Is(err, ErrEmpty) {
			return done, failed
		}
		if err := fn(lease.Job); err != nil {
			_ = q.Nack(lease.Token, err)
			failed++
			continue
		}
		_ = q.Ack(lease.Token)
		done++
	}
}
