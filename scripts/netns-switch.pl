#!/usr/bin/perl
# scripts/netns-switch.pl — the private switch of scripts/netns.sh: a learning Ethernet switch
# in user space whose ports are TAP devices, with each link's delay, loss and rate, and the
# faults (cut, delay, heal), applied per packet. Run inside the switch's own namespace:
#
#   ip netns exec NS perl scripts/netns-switch.pl CONTROL_FIFO
#
# Why user space: the kernels this project runs on (CI's included) are built without
# sch_netem (CONFIG_NET_SCH_NETEM is not set), and no other qdisc delays a packet; tbf shapes
# a rate and a firewall drops, but nothing else holds a packet for a time. The switch does all
# three in one place, the same on every kernel that has TUN (CONFIG_TUN).
#
# Control lines, one per write to CONTROL_FIFO (it is opened read-write: never at EOF):
#   add PORT              create TAP device PORT here (the caller then moves it into a host's
#                         namespace; its file descriptor stays with the switch)
#   link PORT DELAY_US LOSS RATE_BPS CUT
#                         PORT's link: one-way delay (µs, each direction), loss (a fraction,
#                         each direction), rate (bits/s, 0 = unlimited), CUT 1 = every packet
#                         to or from PORT is dropped
#   dump FILE             write each port's counters to FILE (FILE.tmp, then renamed)
#   quit                  exit 0
# A packet from port A to port B waits delay(A) + delay(B) (it crosses two links), plus its
# serialization at each link's rate after the packets queued before it; per output port the
# departure times never go down, so a delay that shrinks (a heal) reorders nothing.
# Up to QUEUE_LIMIT packets wait per output port (more are dropped: counted as "queue").
# On x86_64 the timer slack is set to 1 ns (prctl), so select() wakes within a few µs.
use strict;
use warnings;
use Fcntl qw(O_RDWR O_NONBLOCK F_GETFL F_SETFL);
use POSIX qw(EAGAIN EINTR);
use Time::HiRes qw(clock_gettime CLOCK_MONOTONIC);

my $QUEUE_LIMIT = 2000;
my $TUNSETIFF = 0x400454ca;      # _IOW('T', 202, int)
my $IFF_TAP_NO_PI = 0x0002 | 0x1000;

my $control_path = shift @ARGV or die "usage: netns-switch.pl CONTROL_FIFO\n";
sysopen(my $control, $control_path, O_RDWR | O_NONBLOCK) or die "netns-switch: $control_path: $!\n";
$| = 1;
if ((POSIX::uname())[4] eq 'x86_64') {
  syscall(157, 29, 1, 0, 0, 0);  # prctl(PR_SET_TIMERSLACK, 1 ns)
}

# Ports, by index: fh, name, link parameters, counters, output queue (of [due_s, bytes]),
# each link direction's busy-until time (s, for the rate).
my @ports;
my %port_of_name;
my %port_of_mac;                 # learned: source MAC → port index
my $control_buffer = '';

sub now { clock_gettime(CLOCK_MONOTONIC) }

sub add_port {
  my ($name) = @_;
  return print STDERR "netns-switch: port $name exists\n" if exists $port_of_name{$name};
  sysopen(my $fh, '/dev/net/tun', O_RDWR) or return print STDERR "netns-switch: /dev/net/tun: $!\n";
  my $ifr = pack('a16 s x22', $name, $IFF_TAP_NO_PI);
  ioctl($fh, $TUNSETIFF, $ifr) or return print STDERR "netns-switch: TUNSETIFF $name: $!\n";
  fcntl($fh, F_SETFL, fcntl($fh, F_GETFL, 0) | O_NONBLOCK);
  push @ports, {
    fh => $fh, name => $name, fd => fileno($fh),
    delay => 0, loss => 0, rate => 0, cut => 0,
    rx => 0, tx => 0, loss_drops => 0, cut_drops => 0, queue_drops => 0, write_drops => 0,
    queue => [], up_busy => 0, down_busy => 0,
  };
  $port_of_name{$name} = $#ports;
}

sub dump_counters {
  my ($file) = @_;
  open(my $out, '>', "$file.tmp") or return print STDERR "netns-switch: $file.tmp: $!\n";
  for my $p (@ports) {
    printf $out "port %s delay_us %d loss %g rate_bps %d cut %d rx %d tx %d drop_loss %d drop_cut %d drop_queue %d drop_write %d queued %d\n",
      $p->{name}, $p->{delay} * 1e6, $p->{loss}, $p->{rate}, $p->{cut}, $p->{rx}, $p->{tx},
      $p->{loss_drops}, $p->{cut_drops}, $p->{queue_drops}, $p->{write_drops}, scalar @{ $p->{queue} };
  }
  close $out;
  rename("$file.tmp", $file);
}

sub command {
  my ($line) = @_;
  my @w = split ' ', $line;
  return unless @w;
  if ($w[0] eq 'add' && @w == 2) { add_port($w[1]); }
  elsif ($w[0] eq 'link' && @w == 6 && exists $port_of_name{ $w[1] }) {
    my $p = $ports[ $port_of_name{ $w[1] } ];
    @$p{qw(delay loss rate cut)} = ($w[2] / 1e6, $w[3] + 0, $w[4] + 0, $w[5] + 0);
  }
  elsif ($w[0] eq 'dump' && @w == 2) { dump_counters($w[1]); }
  elsif ($w[0] eq 'quit') { exit 0; }
  else { print STDERR "netns-switch: ignored control line: $line\n"; }
}

# A frame from port $in to port $out: dropped (counted) or queued with its departure time.
sub forward {
  my ($in, $out, $frame, $t) = @_;
  my ($a, $b) = ($ports[$in], $ports[$out]);
  if ($a->{cut} || $b->{cut}) { ($a->{cut} ? $a : $b)->{cut_drops}++; return; }
  if ($a->{loss} > 0 && rand() < $a->{loss}) { $a->{loss_drops}++; return; }
  if ($b->{loss} > 0 && rand() < $b->{loss}) { $b->{loss_drops}++; return; }
  my $q = $b->{queue};
  if (@$q >= $QUEUE_LIMIT) { $b->{queue_drops}++; return; }
  my $bits = 8 * length($frame);
  # Up the sender's link (serialized after what it sent before), across, down the receiver's.
  my $at = $t;
  if ($a->{rate} > 0) { $at = ($a->{up_busy} > $at ? $a->{up_busy} : $at) + $bits / $a->{rate}; $a->{up_busy} = $at; }
  $at += $a->{delay};
  if ($b->{rate} > 0) { $at = ($b->{down_busy} > $at ? $b->{down_busy} : $at) + $bits / $b->{rate}; $b->{down_busy} = $at; }
  $at += $b->{delay};
  $at = $q->[-1][0] if @$q && $q->[-1][0] > $at;  # never ahead of a packet queued before it
  push @$q, [$at, $frame];
}

sub receive {
  my ($in, $t) = @_;
  my $p = $ports[$in];
  for (1 .. 64) {  # a burst per wake-up, then the others get their turn
    my $frame;
    my $n = sysread($p->{fh}, $frame, 65536);
    last unless $n;  # EAGAIN (undef) or nothing
    $p->{rx}++;
    next if $n < 14;
    my ($dst, $src) = (substr($frame, 0, 6), substr($frame, 6, 6));
    $port_of_mac{$src} = $in unless ord($src) & 1;
    my $out = (ord($dst) & 1) ? undef : $port_of_mac{$dst};
    if (defined $out) { forward($in, $out, $frame, $t) if $out != $in; }
    else { forward($in, $_, $frame, $t) for grep { $_ != $in } 0 .. $#ports; }  # broadcast, unknown
  }
}

sub send_due {
  my ($t) = @_;
  my $next;
  for my $p (@ports) {
    my $q = $p->{queue};
    while (@$q && $q->[0][0] <= $t) {
      my $item = shift @$q;
      my $w = syswrite($p->{fh}, $item->[1]);
      if (defined $w) { $p->{tx}++; } else { $p->{write_drops}++; }  # a link set down, a full queue
    }
    $next = $q->[0][0] if @$q && (!defined $next || $q->[0][0] < $next);
  }
  return $next;
}

$SIG{TERM} = sub { exit 0 };
$SIG{INT} = sub { exit 0 };
print "netns-switch: ready\n";
while (1) {
  my $t = now();
  my $next = send_due($t);
  my $rin = '';
  vec($rin, fileno($control), 1) = 1;
  vec($rin, $_->{fd}, 1) = 1 for @ports;
  my $timeout = defined $next ? $next - now() : 1.0;
  $timeout = 0 if $timeout < 0;
  my $nfound = select(my $rout = $rin, undef, undef, $timeout);
  next if $nfound <= 0;
  $t = now();
  for my $i (0 .. $#ports) { receive($i, $t) if vec($rout, $ports[$i]{fd}, 1); }
  if (vec($rout, fileno($control), 1)) {
    my $chunk;
    while (my $n = sysread($control, $chunk, 4096)) { $control_buffer .= $chunk; }
    while ($control_buffer =~ s/^([^\n]*)\n//) { command($1); }
  }
}
