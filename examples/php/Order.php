<?php
// An entity whose ulid id the server makes (UlidGenerator), in a table
// whose column also defaults to gen_monotonic_ulid() for rows written
// without the ORM.

declare(strict_types=1);

namespace App\Entity;

use App\Doctrine\UlidGenerator;
use Doctrine\ORM\Mapping as ORM;
use Symfony\Component\Uid\Ulid;

#[ORM\Entity]
#[ORM\Table(name: 'orders')]
class Order
{
    #[ORM\Id]
    #[ORM\Column(type: 'ulid', columnDefinition: 'ulid DEFAULT gen_monotonic_ulid()')]
    #[ORM\GeneratedValue(strategy: 'CUSTOM')]
    #[ORM\CustomIdGenerator(class: UlidGenerator::class)]
    private ?Ulid $id = null;

    #[ORM\Column(type: 'decimal', precision: 10, scale: 2)]
    private string $total;

    #[ORM\Column(type: 'ulid', nullable: true)]
    private ?Ulid $parent = null;

    public function __construct(string $total, ?Ulid $parent = null)
    {
        $this->total = $total;
        $this->parent = $parent;
    }

    public function getId(): ?Ulid
    {
        return $this->id;
    }

    public function getTotal(): string
    {
        return $this->total;
    }

    public function getParent(): ?Ulid
    {
        return $this->parent;
    }
}
